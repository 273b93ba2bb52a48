/// What a persisted entry keeps from its last read for the next one — `State`, what the value
/// was read under, and the value itself — behind one lock: the ``LockedBox`` pattern for a
/// non-generic state next to a value of the entry's generic type.
///
/// Why not a ``LockedBox`` of one struct holding both: such a struct is generic over the value,
/// and a read from the entry's unspecialised generic code then instantiates its type metadata
/// (a lookup in the runtime's cache) on every read; here the value is a field of this class,
/// found through the instance. Measured in Documentation/Performance.md (mechanisms table).
final class KeptRead<State, Value>: @unchecked Sendable {
    // Safe: `state` and `value` are only accessed inside `withLock`, with `lock` held.
    private let lock = Lock()
    private var state: State
    /// Last, so that the fields before it have fixed offsets whatever `Value` is.
    private var value: Value

    init(_ state: State, _ value: Value) {
        self.state = state
        self.value = value
    }

    /// Runs `body` on the state and the value with the lock held. `body` must not take this lock
    /// again, nor run user code, logging or I/O.
    @inline(__always)
    func withLock<Result>(_ body: (inout State, inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state, &value)
    }
}
