/// A registry entry whose value is guarded by the entry's own lock (`StateEntry`,
/// `SyncStateEntry`).
///
/// The value's runtime exclusivity check is switched off: every access holds ``lock``, which
/// already makes it exclusive, and the check would cost a pair of runtime calls on every read.
/// Subclasses keep to the rule that makes this safe: touch ``lockedValue`` only with ``lock``
/// held (or from inside a mutation that holds it).
@usableFromInline
class LockedValueEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `lockedValue` is only read or written while `lock` is held.
    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var lockedValue: Value

    @usableFromInline
    init(key: EntryKey, value: Value) {
        self.lockedValue = value
        super.init(key: key)
    }
}
