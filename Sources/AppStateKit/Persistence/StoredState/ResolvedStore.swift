/// The store a ``StoredStateEntry`` reads and writes, with the ``FileKeyValueStore`` behind it
/// found once, when the store is resolved: a cast on every read would cost more than the rest
/// of a read that finds nothing changed. A class, so that handing it out is one retain.
final class ResolvedStore: Sendable {
    let store: any UserDefaultsManaging
    /// `store` as a ``FileKeyValueStore``, when it is one: reads then reuse decoded values.
    let fileStore: FileKeyValueStore?

    init(_ store: any UserDefaultsManaging) {
        self.store = store
        self.fileStore = store as? FileKeyValueStore
    }
}
