/// A registry entry whose value is guarded by the entry's own lock (`StateEntry`,
/// `SyncStateEntry`).
///
/// Subclasses touch ``lockedValue`` only with ``lock`` held (or from inside a mutation that
/// holds it).
@usableFromInline
class LockedValueEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `lockedValue` is only read or written while `lock` is held.
    @usableFromInline let lock = Lock()
    /// The value, behind a pointer: every access holds ``lock``, so the runtime's exclusivity
    /// tracking of a class's stored properties (a call in and out of the runtime per access)
    /// would guard nothing.
    @usableFromInline let storage: UnsafeMutablePointer<Value>

    /// The value; touch it only with ``lock`` held.
    @inlinable var lockedValue: Value {
        _read { yield storage.pointee }
        _modify { yield &storage.pointee }
    }

    @usableFromInline
    init(key: EntryKey, value: Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
        super.init(key: key)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }
}
