/// A value paired with the lock that guards it, for values read on hot paths.
///
/// The value's runtime exclusivity check is switched off: every access goes through
/// ``withLock(_:)``, which holds ``lock`` and so already makes it exclusive; the check would
/// cost a pair of runtime calls on every access.
final class LockedBox<Value>: @unchecked Sendable {
    // Safe: `value` is only accessed inside `withLock`, with `lock` held.
    private let lock = Lock()
    @exclusivity(unchecked) private var value: Value

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
