/// A value paired with the lock that guards it (like swift-nio's `NIOLockedValueBox`): the
/// value is reachable only through ``withLock(_:)``, so nobody touches it without the lock.
final class LockedBox<Value>: @unchecked Sendable {
    // Safe: `value` is only accessed inside `withLock`, with `lock` held.
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value with the lock held. `body` must not take this lock again, nor
    /// run user code, logging or I/O.
    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
