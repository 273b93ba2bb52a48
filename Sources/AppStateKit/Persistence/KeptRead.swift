/// What a persisted entry keeps from its last read for the next one — `State`, what the value
/// was read under, and the value itself — behind one lock: the ``LockedBox`` pattern for a
/// non-generic state next to a value of the entry's generic type.
///
/// Why not a ``LockedBox`` of one struct holding both: such a struct is generic over the value,
/// and a read from the entry's unspecialised generic code then instantiates its type metadata
/// (a lookup in the runtime's cache) on every read. Why pointers rather than stored `var`s:
/// the runtime's exclusivity tracking of a class's stored properties costs a call in and out of
/// the runtime per access and guards nothing here, as every access holds the lock (as in
/// `LockedValueEntry`). Measured in Documentation/Performance.md (mechanisms table).
final class KeptRead<State, Value>: @unchecked Sendable {
    // Safe: the pointees are only accessed inside `withLock`, with `lock` held; the pointers are
    // allocated once, never reassigned, and freed in `deinit`.
    private let lock = Lock()
    private let state: UnsafeMutablePointer<State>
    private let value: UnsafeMutablePointer<Value>

    init(_ state: State, _ value: Value) {
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: state)
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` on the state and the value with the lock held. `body` must not take this lock
    /// again, nor run user code, logging or I/O.
    @inline(__always)
    func withLock<Result>(_ body: (inout State, inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state.pointee, &value.pointee)
    }
}
