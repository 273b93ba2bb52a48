import Synchronization

/// The registry entry behind an ``Application/State``: the current value and the initial value
/// that ``Application/State/reset()`` restores.
///
/// Reads and writes hold the entry's own lock for a copy; ``update(_:)`` holds it while the
/// caller's closure runs, which makes read-modify-write atomic. Re-entering the same entry from
/// inside that closure would self-deadlock; it is detected and stops with the entry's key.
final class StateEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `storedValue` is only read or written while `lock` is held; `initial` is immutable.
    private let lock = Lock()
    private let initial: Value
    private var storedValue: Value
    /// The thread running an `update` closure on this entry, or 0.
    private let updatingThread = Atomic<UInt>(0)

    init(key: EntryKey, initial: Value) {
        self.initial = initial
        self.storedValue = initial
        super.init(key: key)
    }

    override var kindName: String { "State" }
    override var valueTypeName: String { String(reflecting: Value.self) }
    override var valueDescription: String { String(describing: value) }

    var value: Value {
        get {
            trackAccess()
            lockDetectingReentry()
            defer { lock.unlock() }
            return storedValue
        }
        set {
            notifyingObservers {
                lockDetectingReentry()
                storedValue = newValue
                lock.unlock()
            }
        }
    }

    func reset() {
        value = initial
    }

    /// Runs `body` on the value with the entry locked, so no other write interleaves.
    func update<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try notifyingObservers {
            lockDetectingReentry()
            updatingThread.store(ThreadID.current.rawValue, ordering: .relaxed)
            defer {
                updatingThread.store(0, ordering: .relaxed)
                lock.unlock()
            }
            return try body(&storedValue)
        }
    }

    @inline(__always)
    private func lockDetectingReentry() {
        if lock.tryLock() { return }
        if updatingThread.load(ordering: .relaxed) == ThreadID.current.rawValue {
            fatalError(
                "AppStateKit: \(key.readable) was accessed from inside its own update closure. "
                    + "Use the closure's inout value instead of reading or writing the state again."
            )
        }
        lock.lock()
    }
}
