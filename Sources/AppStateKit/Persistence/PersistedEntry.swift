/// The base class of the registry entries whose value lives outside the process
/// (``StoredStateEntry``, ``FileStateEntry``): what the two kinds share, written once.
///
/// A subclass supplies where its value lives — ``read()``, ``write(_:)``, ``remove()`` and the
/// compare-and-set ``update(_:storeFailure:)`` — and inherits everything its handle does with
/// them: the value that falls back to ``initial`` and reports why (once in a row), the setter
/// that reports instead of throwing, the in-place accessor (``PersistedValueInPlace``), and the
/// handle operations in `PersistedEntry+Handle.swift`.
///
/// Mutations in place — the handles' `value += 1`, `modify(_:)`, and ``modify(_:)`` here — read,
/// mutate and write while holding ``modification``, so within this process no other write of
/// the entry interleaves. Plain assignments hold it too; plain reads don't (they only check that
/// they aren't made from inside a mutation of the same entry on the same thread).
@usableFromInline
class PersistedEntry<Value: Codable & Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `lastReported` is a LockedBox, `hasReported` is atomic, everything else is immutable.

    /// What reads return when nothing (usable) is persisted.
    let initial: Value
    /// The application whose collaborators (store, file manager) and logger this entry uses.
    let owner: EntryOwner
    /// Serialises this entry's writes and read-modify-writes within the process.
    let modification = ModificationLock()
    /// The last failure reported, so that one repeated on every read is reported once.
    private let lastReported = LockedBox<String?>(nil)
    /// Whether ``lastReported`` is set (1) or not (0), written with its lock held: a successful
    /// read loads it instead of taking the lock when there is nothing to forget.
    private let hasReported = AtomicWord(0)

    init(key: EntryKey, initial: Value, owner: EntryOwner) {
        self.initial = initial
        self.owner = owner
        super.init(key: key)
    }

    override final var valueTypeName: String { String(reflecting: Value.self) }
    override final var valueDescription: String { String(describing: value) }

    // MARK: Supplied by each kind

    /// The persisted value, or ``initial`` when there is none; throws when it can't be used.
    func read() throws -> Value {
        preconditionFailure("AppStateKit: \(type(of: self)) must override read()")
    }

    /// Persists `newValue`.
    func write(_ newValue: Value) throws {
        preconditionFailure("AppStateKit: \(type(of: self)) must override write(_:)")
    }

    /// Removes the persisted value, so reads return ``initial``.
    func remove() throws {
        preconditionFailure("AppStateKit: \(type(of: self)) must override remove()")
    }

    /// Reads, changes and writes the value as one step (a compare-and-set loop); calls
    /// `storeFailure` with a read, decode or write error, which rethrows or reports it.
    func update<Result>(
        _ body: (inout Value) throws -> Result,
        storeFailure: (any Error) throws -> Void
    ) rethrows -> Result {
        preconditionFailure("AppStateKit: \(type(of: self)) must override update(_:storeFailure:)")
    }

    // MARK: Shared

    /// The value, or ``initial`` after reporting why the persisted one can't be used.
    final var value: Value {
        do {
            let value = try read()
            if hasReported.loadRelaxed() != 0 {
                lastReported.withLock {
                    $0 = nil
                    hasReported.storeRelaxed(0)
                }
            }
            return value
        } catch {
            report(error)
            return initial
        }
    }

    /// `error`, why a change couldn't read the persisted value it starts from, saying that the
    /// change was therefore not written: a change that starts from the persisted value
    /// (``update(_:storeFailure:)``, the in-place accessor) has nothing to start from, and
    /// writing would replace a value a fix of the type or the file could still read.
    final func changeNotWritten(_ error: any Error) -> any Error {
        guard let error = error as? PersistenceError else { return error }
        return PersistenceError(
            error.kind, errno: error.errno, subject: error.subject,
            detail: error.detail + "; the change was not written, so the stored value is kept (assign a value or reset() to replace it)"
        )
    }

    /// Reports `error` through the owning application's logger, once per distinct message in a row.
    final func report(_ error: any Error) {
        let message = "AppStateKit: \(error)"
        let isNew = lastReported.withLock { last in
            defer {
                last = message
                hasReported.storeRelaxed(1)
            }
            return last != message
        }
        if isNew { owner.reportError(message) }
    }

    /// Reads, mutates with `body` and writes the value as one step within the process; throws
    /// when the value can't be read or written (nothing is written then).
    ///
    /// `body` runs with ``modification`` held: touching this same entry from inside it stops
    /// the process with the entry's key.
    final func modify<Result>(_ body: (inout Value) throws -> Result) throws -> Result {
        modification.lock(self)
        defer { modification.unlock() }
        var current = try read()
        let result = try body(&current)
        try write(current)
        return result
    }

    /// The handles' `value` getter: ``value``, refusing to be read from inside its own mutation.
    final var valueOutsideModification: Value {
        modification.checkNotHeld(by: self)
        return value
    }

    /// The handles' `value` setter: writes under ``modification`` and reports a failure
    /// (after releasing it).
    final func assign(_ newValue: Value) {
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
    final var inPlace: PersistedValueInPlace<Value> { PersistedValueInPlace(entry: self) }
}
