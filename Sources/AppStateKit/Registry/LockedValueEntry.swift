/// A registry entry whose value is guarded by the entry's own lock (`StateEntry`,
/// `SyncStateEntry`).
///
/// Subclasses touch ``lockedValue`` only with ``lock`` held (or from inside a mutation that
/// holds it).
@usableFromInline
class LockedValueEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `lockedValue` is only read or written while `lock` is held.
    @usableFromInline let lock = Lock()
    @usableFromInline var lockedValue: Value

    @usableFromInline
    init(key: EntryKey, value: Value) {
        self.lockedValue = value
        super.init(key: key)
    }
}
