/// How a change of an entry reaches listeners beyond its Observation registrar (the change
/// streams of `Observation/`), without the registry naming them: the listening layer installs
/// one function, once, before it first raises an entry's ``RegistryEntry/streamCount``.
///
/// ``RegistryEntry/didChange()`` calls ``notify(_:)`` only while the entry's stream count is
/// non-zero, so writes to entries nobody streams never reach this type's lock.
enum EntryChangeHook {
    private static let lock = Lock()
    // Safe: only accessed while `lock` is held; set once.
    nonisolated(unsafe) private static var listener: (@Sendable (RegistryEntry) -> Void)?

    /// Installs `listener` unless one is installed already.
    static func install(_ listener: @escaping @Sendable (RegistryEntry) -> Void) {
        lock.withLock {
            if self.listener == nil { self.listener = listener }
        }
    }

    /// Tells the installed listener, if any, that `entry` changed. Called with no lock held.
    /// Out of line: it is the cold branch of every write.
    @inline(never)
    static func notify(_ entry: RegistryEntry) {
        lock.withLock { listener }?(entry)
    }
}
