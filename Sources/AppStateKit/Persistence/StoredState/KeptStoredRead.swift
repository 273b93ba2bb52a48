/// What a ``StoredStateEntry`` read from a ``FileKeyValueStore`` keeps for the next read: the
/// decoded value, the store and its ``FileKeyValueStore/ReadValidity`` then, and — for an entry
/// using its application's `\.userDefaults` — the resolution of that dependency it read under.
///
/// Immutable and published whole (a ``ReadMostlyReference``), so the next read checks it with
/// atomic loads and no lock: it returns `value` while the resolution still serves the calling
/// task (no promotion, override, removal or scope changed what `\.userDefaults` resolves to) and
/// the store says nothing changed since (see ``FileKeyValueStore/isUnchanged(since:)``).
final class KeptStoredRead<Value: Sendable>: KeptRead, @unchecked Sendable {
    // Safe: immutable.
    /// The `\.userDefaults` resolution the store came from; `nil` for the entry's own store.
    let collaborator: DependencyMemo<ResolvedStore>.Resolved?
    let store: FileKeyValueStore
    let validity: FileKeyValueStore.ReadValidity
    /// Last, so that the fields before it have fixed offsets in the generic layout.
    let value: Value

    init(collaborator: DependencyMemo<ResolvedStore>.Resolved?, store: FileKeyValueStore, validity: FileKeyValueStore.ReadValidity, value: Value) {
        self.collaborator = collaborator
        self.store = store
        self.validity = validity
        self.value = value
    }

    /// ``KeptRead/isCurrent(for:)``.
    @inline(__always)
    func isCurrent(for owner: EntryOwner) -> Bool {
        // Optional chaining rather than binding `collaborator`: binding retains it.
        collaborator?.stillServes(owner) != false && validity.holds(in: store)
    }
}

extension FileKeyValueStore.ReadValidity {
    /// ``FileKeyValueStore/isUnchanged(since:)`` for a validity `store` handed out, checked in
    /// place (no copy of the optional).
    @inline(__always)
    func holds(in store: FileKeyValueStore) -> Bool {
        store.cacheChanges.loadAcquiring() == cacheChange && freshness.isCurrent()
    }
}
