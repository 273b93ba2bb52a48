/// A registry entry whose value lives outside the process (``StoredStateEntry``,
/// ``FileStateEntry``): what the two kinds share, written once.
///
/// An entry supplies where its value lives — ``read()``, ``write(_:)``, ``remove()`` and the
/// compare-and-set ``update(_:storeFailure:)`` — and gets from here everything its handle does
/// with them: the value that falls back to ``initial`` and reports why (once in a row, see
/// ``RepeatedReportFilter``), the setter that reports instead of throwing, the in-place accessor,
/// and the handle operations in `PersistedEntry+Handle.swift`.
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
    /// The application whose logger reports this entry's failures.
    var owner: EntryOwner { get }
    /// The last failure reported, so that one repeated on every read is reported once.
    var reports: RepeatedReportFilter { get }

    /// The persisted value, or ``initial`` when there is none; throws when it can't be used.
    func read() throws -> Value
    /// Persists `newValue`.
    func write(_ newValue: Value) throws
    /// Removes the persisted value, so reads return ``initial``.
    func remove() throws
    /// Reads, changes and writes the value as one step (a compare-and-set loop); calls
    /// `storeFailure` with a read, decode or write error, which rethrows or reports it.
    func update<Result>(
        _ body: (inout Value) throws -> Result,
        storeFailure: (any Error) throws -> Void
    ) rethrows -> Result
}

extension PersistedEntry {
    /// The value, or ``initial`` after reporting why the persisted one can't be used.
    var value: Value {
        do {
            let value = try read()
            reports.clear()
            return value
        } catch {
            report(error)
            return initial
        }
    }

    /// Reports `error` through the owning application's logger, once per distinct message in a row.
    func report(_ error: any Error) {
        let message = "AppStateKit: \(error)"
        if reports.isNew(message) { owner.reportError(message) }
    }

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

extension StoredStateEntry: PersistedEntry {}

extension FileStateEntry: PersistedEntry {}
