import Synchronization

/// The registry entry behind an ``Application/State``: the current value and the initial value
/// that ``Application/State/reset()`` restores.
///
/// Reads and writes hold the entry's own lock for a copy; the handle's in-place accessor
/// (`state.value += 1`) holds it while the caller's mutation runs, which makes
/// read-modify-write atomic. Re-entering the same entry from inside that mutation would
/// self-deadlock; it is detected and stops with the entry's key.
@usableFromInline
final class StateEntry<Value: Sendable>: LockedValueEntry<Value>, @unchecked Sendable {
    // Safe: the value (`lockedValue`) is only read or written while `lock` is held; `initial`
    // is immutable.
    @usableFromInline let initial: Value
    /// The thread running an in-place mutation of this entry, or 0.
    @usableFromInline let updatingThread = AtomicWord(0)

    @usableFromInline
    init(key: EntryKey, initial: Value) {
        self.initial = initial
        super.init(key: key, value: initial)
    }

    override var kindName: String { "State" }
    override var valueTypeName: String { String(reflecting: Value.self) }
    override var valueDescription: String { String(describing: value) }

    @inlinable
    var value: Value {
        get {
            trackAccess()
            lockDetectingReentry()
            defer { lock.unlock() }
            return lockedValue
        }
        set {
            notifyingObservers {
                lockDetectingReentry()
                lockedValue = newValue
                lock.unlock()
            }
        }
    }

    @usableFromInline
    func reset() {
        value = initial
    }

    /// Takes the lock for an in-place mutation (the handle's `_modify`) and marks the calling
    /// thread as the one mutating, so touching the entry again from inside the mutation stops
    /// with the entry's key instead of deadlocking.
    @inlinable
    func beginModification() {
        lockDetectingReentry()
        updatingThread.storeRelaxed(UInt64(ThreadID.current.rawValue))
    }

    /// Ends what ``beginModification()`` began.
    @inlinable
    func endModification() {
        updatingThread.storeRelaxed(0)
        lock.unlock()
    }

    @inlinable
    func lockDetectingReentry() {
        if lock.tryLock() { return }
        if updatingThread.loadRelaxed() == UInt64(ThreadID.current.rawValue) {
            reentryDetected()
        }
        lock.lock()
    }

    @usableFromInline
    func reentryDetected() -> Never {
        ModificationReentry(kind: kindName, key: key).stop()
    }
}
