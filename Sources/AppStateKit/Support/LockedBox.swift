/// A value paired with the lock that guards it (like swift-nio's `NIOLockedValueBox`): the
/// value is reachable only through ``withLock(_:)``, so nobody touches it without the lock.
@usableFromInline
final class LockedBox<Value>: @unchecked Sendable {
    // Safe: the pointee is only accessed inside `withLock`, with `lock` held; the pointer is
    // allocated once, never reassigned, and freed in `deinit`.
    @usableFromInline let lock = Lock()
    /// The value, behind a pointer rather than in a stored `var`: the runtime's exclusivity
    /// tracking of a class's stored properties (a call in and out of the runtime per access)
    /// guards nothing the lock doesn't.
    @usableFromInline let value: UnsafeMutablePointer<Value>

    init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` on the value with the lock held. `body` must not take this lock again, nor
    /// run user code, logging or I/O (two boxes do on purpose, and say why at their declaration:
    /// `CallerBoundTransform`'s and `SyncCoordinator`'s `rebinding`).
    @inlinable @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value.pointee)
    }

    /// Runs `body` on the value with the lock held until it returns a result: each time it
    /// returns `nil`, waits on `condition` (the lock released meanwhile, so others can change
    /// the value and signal) until signalled or `timeout` passes, then runs it again, telling it
    /// whether that wait ran out.
    func withLock<Result>(waitingOn condition: Condition, timeout: Duration, _ body: (inout Value, _ timedOut: Bool) -> Result?) -> Result {
        lock.lock()
        defer { lock.unlock() }
        var timedOut = false
        while true {
            if let result = body(&value.pointee, timedOut) { return result }
            timedOut = !lock.wait(on: condition, until: Condition.deadline(after: timeout))
        }
    }
}
