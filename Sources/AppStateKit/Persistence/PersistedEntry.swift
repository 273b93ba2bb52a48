/// A registry entry whose value lives outside the process (``StoredStateEntry``,
/// ``FileStateEntry``): what an in-place mutation of its value needs.
///
/// Mutations in place — the handles' `value += 1`, `modify(_:)`, and ``modify(_:)`` here — read,
/// mutate and write while holding ``modification``, so within this process no other write of
/// the entry interleaves. Plain assignments hold it too; plain reads don't (they only check that
/// they aren't made from inside a mutation of the same entry on the same thread).
protocol PersistedEntry: RegistryEntry {
    associatedtype Value: Codable & Sendable

    /// Serialises this entry's writes and read-modify-writes within the process.
    var modification: ModificationLock { get }
    /// What reads return when nothing (usable) is persisted.
    var initial: Value { get }

    /// The persisted value, or ``initial`` when there is none; throws when it can't be used.
    func read() throws -> Value
    /// Persists `newValue`.
    func write(_ newValue: Value) throws
    /// Reports `error` through the logger.
    func report(_ error: any Error)
    /// The value, or ``initial`` after reporting why the persisted one can't be used.
    var value: Value { get }
}

extension PersistedEntry {
    /// Reads, mutates with `body` and writes the value as one step within the process; throws
    /// when the value can't be read or written (nothing is written then).
    ///
    /// `body` runs with ``modification`` held: touching this same entry from inside it stops
    /// the process with the entry's key.
    func modify<Result>(_ body: (inout Value) throws -> Result) throws -> Result {
        modification.lock(self)
        defer { modification.unlock() }
        var current = try read()
        let result = try body(&current)
        try write(current)
        return result
    }

    /// The handles' `value` getter: ``value``, refusing to be read from inside its own mutation.
    var valueOutsideModification: Value {
        modification.checkNotHeld(by: self)
        return value
    }

    /// The handles' `value` setter: writes under ``modification`` and reports a failure
    /// (after releasing it).
    func assign(_ newValue: Value) {
        let problem: (any Error)? = modification.withLock(self) {
            do {
                try write(newValue)
                return nil
            } catch {
                return error
            }
        }
        if let problem { report(problem) }
    }

    /// The handles' in-place accessor: see ``PersistedValueInPlace``.
    var inPlace: PersistedValueInPlace<Self> { PersistedValueInPlace(entry: self) }
}

/// Yields a persisted entry's value for mutation in place: the entry's ``PersistedEntry/modification``
/// lock is held from the read to the write, so `value += 1` from many threads loses nothing.
///
/// A value that can't be read is reported and the mutation starts from the initial value (as
/// `value = value + 1` would); a failed write is reported and leaves the persisted value as it
/// was. Reports are made after the lock is released. As with any `inout` access, what a throwing
/// mutation changed before it threw is kept (written), exactly as for an in-memory state.
struct PersistedValueInPlace<Entry: PersistedEntry> {
    let entry: Entry

    var value: Entry.Value {
        get { entry.valueOutsideModification }
        nonmutating set { entry.assign(newValue) }
        nonmutating _modify {
            entry.modification.lock(entry)
            var problems: [any Error] = []
            var current: Entry.Value
            do {
                current = try entry.read()
            } catch {
                problems.append(error)
                current = entry.initial
            }
            // Written in `defer` so that a mutation that throws (which unwinds this accessor
            // when it is the outermost, but ends it normally when a wrapper or slice yields it)
            // keeps its changes either way.
            defer {
                do {
                    try entry.write(current)
                } catch {
                    problems.append(error)
                }
                entry.modification.unlock()
                for problem in problems { entry.report(problem) }
            }
            yield &current
        }
    }
}

extension StoredStateEntry: PersistedEntry {}

extension FileStateEntry: PersistedEntry {}
