import AppStateKitCore
/// An entry whose value lives outside the process (``StoredStateEntry``, ``FileStateEntry``):
/// each kind supplies ``read()``, ``writeValue(_:)``, ``removeValue()`` and the compare-and-set
/// ``update(_:storeFailure:)``; the handles' operations on them are in the extension below.
///
/// Assignments and mutations in place hold ``modification``, so within this process no other
/// write of the entry interleaves. Plain reads don't take it; they only check that they aren't
/// made from inside a mutation of the same entry on the same thread.
protocol PersistedEntry: RegistryEntry {
    associatedtype Value: Codable & Sendable

    /// What reads return when nothing (usable) is persisted.
    var initial: Value { get }

    /// The application that owns the entry.
    var owner: EntryOwner { get }

    /// Serialises the entry's writes and read-modify-writes within the process; an `update`
    /// holds it from its comparison to its write, so an in-place mutation can't land between.
    var modification: ModificationLock { get }

    /// The last failure the entry reported.
    var reports: FailureReports { get }

    /// The persisted value, or ``initial`` when there is none; throws when it can't be used.
    func read() throws -> Value

    /// Persists `newValue`; ``write(_:)`` and the setters notify observers, with no lock held.
    func writeValue(_ newValue: Value) throws

    /// Removes the persisted value, so reads return ``initial``; ``remove()`` notifies.
    func removeValue() throws

    /// Reads, changes and writes the value as one step (a compare-and-set loop); calls
    /// `storeFailure` with a read, decode or write error, which rethrows or reports it.
    func update<Result>(
        _ body: (inout Value) throws -> Result,
        storeFailure: (any Error) throws -> Void
    ) rethrows -> Result
}

// The shared operations are always inlined into their callers (the handles, whose entry is a
// concrete class): called as generic code, each would look up the entry class's metadata and
// conformance (~1,500 instructions per StoredState read, the instruction guard's stored-read).
extension PersistedEntry {
    // MARK: Shared

    /// The value, or ``initial`` after reporting why the persisted one can't be used.
    @inline(__always)
    var value: Value {
        do {
            let value = try read()
            reports.readSucceeded()
            return value
        } catch {
            report(error)
            return initial
        }
    }

    /// `error`, why a change couldn't read its starting value, saying the change was not written
    /// (that would replace a value a fix of the type or the file could still read).
    @inline(__always)
    func changeNotWritten(_ error: any Error) -> any Error {
        guard let error = error as? PersistenceError else { return error }
        return error.with(
            detail: error.detail + "; the change was not written, so the stored value is kept (assign a value or reset() to replace it)"
        )
    }

    /// Reports `error` through the owning application's logger, once per distinct message in a row.
    @inline(__always)
    func report(_ error: any Error) {
        reports.report(error, to: owner)
    }

    /// The handles' `value`: ``value``, refusing to be read from inside its own mutation; set
    /// and mutated in place under ``modification``, reporting failures after releasing it.
    ///
    /// A mutation in place holds the lock from the read to the write, so `value += 1` from many
    /// threads loses nothing. A value that can't be read is reported and the mutation runs on
    /// ``initial``, which is not written (the persisted value is kept). What a throwing mutation
    /// changed before it threw is written, as for an in-memory state.
    @inline(__always)
    var handleValue: Value {
        get {
            modification.checkNotHeld(by: self)
            return value
        }
        set {
            let problem: (any Error)? = notifyingObservers {
                modification.withLock(self) {
                    do {
                        try writeValue(newValue)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            if let problem { report(problem) }
        }
        _modify {
            willChange()
            modification.lock(self)
            var problems: [any Error] = []
            var current: Value
            var isWritable = true
            do {
                current = try read()
            } catch {
                isWritable = false
                problems.append(changeNotWritten(error))
                current = initial
            }
            // Written in `defer` so that a mutation that throws (which unwinds this accessor
            // when it is the outermost, but ends it normally when a wrapper or slice yields it)
            // keeps its changes either way.
            defer {
                do {
                    if isWritable { try writeValue(current) }
                } catch {
                    problems.append(error)
                }
                modification.unlock()
                didChange()
                for problem in problems { report(problem) }
            }
            yield &current
        }
    }

    /// The handles' `reset()`: removes the value, reporting a failure through the logger.
    @inline(__always)
    func resetReportingFailure() {
        do {
            try remove()
        } catch {
            report(error)
        }
    }

    /// The handles' `update(_:)`.
    @inline(__always)
    func updateThrowing<Result>(_ body: (inout Value) throws -> Result) throws -> Result {
        try update(body, storeFailure: { throw $0 })
    }

    /// The handles' `modify(_:)`: only `body`'s own errors are thrown.
    @inline(__always)
    func updateReportingFailure<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try update(body, storeFailure: { report($0) })
    }

    // Observers hear of every change with no AppStateKit lock held (Observation.md): `onChange`
    // runs before ``modification`` is taken and the change streams are woken after it is
    // released, so either may read, or write, this very entry.

    /// Persists `newValue`, notifying observers.
    @inline(__always)
    func write(_ newValue: Value) throws {
        try notifyingObservers { try writeValue(newValue) }
    }

    /// Removes the persisted value, so reads return ``initial``, notifying observers.
    @inline(__always)
    func remove() throws {
        try notifyingObservers { try removeValue() }
    }
}

/// What a persisted entry keeps from its last read — the value and `Check`, what vouches for
/// it — behind one lock.
///
/// Pointers rather than stored properties: every access holds the lock, so the runtime's
/// exclusivity checks of class properties would guard nothing at a cost the instruction guard
/// sees; a `LockedBox` of a struct generic over `Value` would look up its metadata on every read.
final class KeptRead<Check, Value>: @unchecked Sendable {
    // Safe: the pointees are only accessed inside `withLock`, with `lock` held; the pointers are
    // allocated once and freed in `deinit`.
    private let lock = Lock()
    private let check: UnsafeMutablePointer<Check>
    private let value: UnsafeMutablePointer<Value>

    init(_ check: Check, _ value: Value) {
        self.check = .allocate(capacity: 1)
        self.check.initialize(to: check)
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        check.deinitialize(count: 1)
        check.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the lock held; it must not take this lock again, log, do I/O or run user
    /// code (swap a replaced value out and release it after the lock: its deinit may run some).
    @inline(__always)
    func withLock<Result>(_ body: (inout Check, inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&check.pointee, &value.pointee)
    }
}

/// The lock a persisted entry (and a SyncState's) holds while its value is written or read,
/// mutated and written back (`storedState.value += 1`), so such changes never interleave.
///
/// It remembers the thread holding it: that thread touching the entry again from inside its
/// mutation would wait for itself forever, so ``lock(_:)`` and ``checkNotHeld(by:)`` stop the
/// process instead, naming the entry (``ModificationReentry``).
package final class ModificationLock: Sendable {
    private let mutex = Lock()
    /// The thread holding the lock, or 0.
    private let owner = AtomicWord(0)

    package init() {}

    // Generic and always inlined, so that the callers, who know the entry's class, pass no
    // existential (making one looks up the class's conformance).

    /// Takes the lock for `entry`, waiting for another thread's mutation to finish.
    @inline(__always)
    package func lock(_ entry: some RegistryEntry) {
        let thread = UInt64(ThreadID.current.rawValue)
        if !mutex.tryLock() {
            if owner.loadRelaxed() == thread {
                ModificationReentry(kind: entry.kindName, key: entry.key).stop()
            }
            mutex.lock()
        }
        owner.storeRelaxed(thread)
    }

    package func unlock() {
        owner.storeRelaxed(0)
        mutex.unlock()
    }

    @inline(__always)
    package func withLock<Result>(_ entry: some RegistryEntry, _ body: () throws -> Result) rethrows -> Result {
        lock(entry)
        defer { unlock() }
        return try body()
    }

    /// Stops the process when the calling thread is inside a mutation of `entry` (a read from
    /// inside it would see the value the mutation is about to replace).
    @inline(__always)
    func checkNotHeld(by entry: some RegistryEntry) {
        if owner.loadRelaxed() == UInt64(ThreadID.current.rawValue) {
            ModificationReentry(kind: entry.kindName, key: entry.key).stop()
        }
    }
}
