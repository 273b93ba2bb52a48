import Synchronization

/// The registry entry behind an ``Application/State``: the current value and the initial value
/// that ``Application/State/reset()`` restores.
///
/// Reads and writes hold the entry's own lock for a copy; the handle's in-place accessor
/// (`state.value += 1`) holds it while the caller's mutation runs, which makes
/// read-modify-write atomic. Re-entering the same entry from inside that mutation would
/// self-deadlock; it is detected and stops with the entry's key.
@usableFromInline
final class StateEntry<Value: Sendable>: LockedValueEntry {
    @usableFromInline let core: EntryCore
    /// The value, read and written with its lock held.
    @usableFromInline let cell: LockedCell<Value>
    @usableFromInline let initial: Value
    /// The thread running an in-place mutation of this entry, or 0.
    @usableFromInline let updatingThread = AtomicWord(0)
    /// Moves (with the lock held, so a plain releasing store) on every write and at the start of
    /// every in-place mutation, so a thread's view whose copy was read at the current version
    /// holds the current value.
    @usableFromInline let version = AtomicWord(0)

    @usableFromInline
    init(key: EntryKey, initial: Value) {
        core = EntryCore(key: key)
        cell = LockedCell(initial)
        self.initial = initial
    }

    @usableFromInline var kindName: String { "State" }
    @usableFromInline var valueTypeName: String { reflectedTypeName(Value.self) }
    @usableFromInline var valueDescription: String { String(describing: value) }

    @usableFromInline func makeView(owner: UInt) -> EntryView {
        ValueView<Value>(entry: self, owner: owner, version: version.view)
    }

    /// The value read through `view`: on the thread that owns it, its copy while ``version``
    /// is unchanged (no lock, and the entry object untouched but for its Observation report),
    /// else read under the lock (and kept, on the owning thread).
    @inlinable
    static func value(through view: EntryView) -> Value {
        view.core.trackAccess()
        if let value = Registry.valueView(view, as: Value.self).current { return value }
        return Registry.entry(of: view, as: StateEntry<Value>.self).refresh(Registry.valueView(view, as: Value.self))
    }

    /// Reads the value under the lock; on the thread that owns `view`, keeps it there with the
    /// version it was read at.
    @usableFromInline
    func refresh(_ view: ValueView<Value>) -> Value {
        lockDetectingReentry()
        defer { lock.unlock() }
        if view.owner == ThreadID.current.rawValue {
            view.keep(lockedValue, at: version.loadRelaxed())
        }
        return lockedValue
    }

    /// The value, read under the lock.
    @inlinable
    func lockedRead() -> Value {
        lockDetectingReentry()
        defer { lock.unlock() }
        return lockedValue
    }

    @inlinable
    var value: Value {
        get {
            trackAccess()
            return lockedRead()
        }
        set {
            notifyingObservers {
                lockDetectingReentry()
                lockedValue = newValue
                version.advanceReleasing()
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
        // Before the value changes: a read of this entry from inside the mutation misses its
        // view's copy and stops in `lockDetectingReentry`.
        version.advanceReleasing()
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
