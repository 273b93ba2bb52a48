/// The lock a persisted entry holds while one of its values is read, mutated and written back
/// (`storedState.value += 1`), so mutations from threads of this process never interleave.
///
/// It remembers which thread holds it: that thread touching the entry again from inside its own
/// mutation would wait for itself forever, so ``lock(_:)`` and ``checkNotHeld(by:)`` stop the
/// process instead, naming the entry (``ModificationReentry``).
final class ModificationLock: @unchecked Sendable {
    // Safe: `mutex` is a pthread mutex; `owner` is only accessed atomically.
    private let mutex = Lock()
    /// The thread holding the lock, or 0.
    private let owner = AtomicWord(0)

    init() {}


    /// Takes the lock for `entry`, waiting for another thread's mutation to finish.
    func lock(_ entry: RegistryEntry) {
        let thread = UInt64(ThreadID.current.rawValue)
        if !mutex.tryLock() {
            if owner.loadRelaxed() == thread {
                ModificationReentry(kind: entry.kindName, key: entry.key).stop()
            }
            mutex.lock()
        }
        owner.storeRelaxed(thread)
    }

    /// Releases the lock taken by ``lock(_:)``.
    func unlock() {
        owner.storeRelaxed(0)
        mutex.unlock()
    }

    /// Runs `body` with the lock held.
    func withLock<Result>(_ entry: RegistryEntry, _ body: () throws -> Result) rethrows -> Result {
        lock(entry)
        defer { unlock() }
        return try body()
    }

    /// Stops the process when the calling thread is inside a mutation of `entry` (a read from
    /// inside it would see the value the mutation is about to replace).
    func checkNotHeld(by entry: RegistryEntry) {
        if owner.loadRelaxed() == UInt64(ThreadID.current.rawValue) {
            ModificationReentry(kind: entry.kindName, key: entry.key).stop()
        }
    }
}
