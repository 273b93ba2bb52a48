import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// The registry entry behind an ``Application/SyncState``: a local cache of one key of the sync
/// store, kept current by the application's ``SyncCoordinator``.
///
/// Reads take the entry's lock for a copy of the cached value and never call the store. The
/// cache changes on a local write (at once: read-your-writes) and when the store reports a newer
/// record — through the change feed, a completed write, a fetch or a new store. While this
/// process has writes of the key in flight, newer records from elsewhere are remembered but not
/// shown, so a read never steps back behind this process's own write; once the last one
/// settles, the newest record the store reported is what reads return.
@usableFromInline
final class SyncStateEntry<Value: Codable & Sendable>: RegistryEntry, SyncCacheEntry {
    @usableFromInline let core: EntryCore
    /// The cached value and what the entry knows of the store, read and written with the cell's
    /// lock held.
    @usableFromInline let cell: LockedCell<Cached>
    /// The key in the sync store.
    let storeKey: String
    let initial: Value
    /// Why the key can't be used (too long), if it can't.
    let keyProblem: SyncStoreError?
    /// The owning application's sync machinery: its store, logger and write queue.
    let coordinator: SyncCoordinator
    /// Held while the value is assigned or mutated in place (`value += 1`), so within this
    /// process no assignment interleaves with a read-modify-write.
    let modification = ModificationLock()
    /// The coordinator's ``SyncCoordinator/storeVersion`` and ``SyncCoordinator/boundVersion``
    /// words (the coordinator, which this entry retains, keeps them alive).
    @usableFromInline let storeVersion: AtomicWord.View
    @usableFromInline let boundVersion: AtomicWord.View

    @usableFromInline
    struct Cached {
        @usableFromInline var value: Value
        var state = CacheState()
    }

    /// The cell's lock, held for every touch of ``lockedValue`` and ``state``.
    @inlinable @inline(__always) var lock: Lock { cell.lock }

    /// The cached value; touch it only with ``lock`` held.
    @inlinable @inline(__always) var lockedValue: Value {
        _read { yield cell.value.value }
        _modify { yield &cell.value.value }
    }

    /// What the entry knows of the store; touch it only with ``lock`` held.
    @inline(__always) private var state: CacheState {
        _read { yield cell.value.state }
        _modify { yield &cell.value.state }
    }

    /// A store record with its decoded value (or why it can't be decoded).
    struct Known {
        var record: SyncRecord?
        var decoded: Result<Value, SyncStoreError>
    }

    struct CacheState {
        /// The coordinator binding (store) the known record came from; versions of different
        /// stores are unrelated.
        var generation: UInt64 = 0
        /// The newest record the store reported for the key.
        var known: Known?
        /// This process's writes of the key that have not settled yet.
        var pendingWrites = 0
        /// A write failed: when the last pending write settles, show the store's value again.
        var mustConverge = false
        /// Why the cached value is the initial value instead of the stored one.
        var problem: SyncStoreError?
        /// The version whose problem was last reported, so each bad record is reported once.
        var reportedProblemVersion: Int64?
    }

    init(key: EntryKey, storeKey: String, initial: Value, coordinator: SyncCoordinator) {
        core = EntryCore(key: key)
        cell = LockedCell(Cached(value: initial))
        self.storeKey = storeKey
        self.initial = initial
        self.coordinator = coordinator
        self.storeVersion = coordinator.storeVersion
        self.boundVersion = coordinator.boundVersion.view
        do {
            try SyncLimits.check(key: storeKey, value: nil)
            self.keyProblem = nil
        } catch let error as SyncStoreError {
            self.keyProblem = error
        } catch {
            self.keyProblem = SyncStoreError(.invalidKey, key: storeKey, detail: "\(error)")
        }
    }

    @usableFromInline var kindName: String { "SyncState" }
    @usableFromInline var valueTypeName: String { reflectedTypeName(Value.self) }
    @usableFromInline var valueDescription: String { String(describing: value) }

    // MARK: Reading

    /// The cached value: the store's value as last learned, this process's newer write, or the
    /// initial value when the key is unset or its record is unusable.
    @inlinable
    var value: Value {
        trackAccess()
        if storeVersion.loadRelaxed() != boundVersion.loadRelaxed() {
            storeReplaced()
        }
        lock.lock()
        defer { lock.unlock() }
        return lockedValue
    }

    /// Binds the coordinator to the replaced `\.syncStore`, reloading every entry from it.
    @usableFromInline
    func storeReplaced() {
        guard keyProblem == nil else { return }
        _ = coordinator.binding()
    }

    /// The newest record the store reported under `generation`, with its decoded value, when
    /// no write of this process is in flight.
    func settledRecord(generation: UInt64) -> (SyncRecord?, Result<Value, SyncStoreError>)? {
        lock.withLock {
            guard state.generation == generation, state.pendingWrites == 0, let known = state.known else { return nil }
            return (known.record, known.decoded)
        }
    }

    /// Decodes `record`'s value.
    func decode(_ record: SyncRecord?) -> Result<Value, SyncStoreError> {
        do {
            return .success(try SyncValueCodec.decode(record?.value, as: Value.self, initial: initial, key: storeKey, version: record?.version ?? 0))
        } catch let error as SyncStoreError {
            return .failure(error)
        } catch {
            return .failure(SyncStoreError(.corruptRecord, key: storeKey, detail: "\(error)"))
        }
    }

    // MARK: Learning from the store

    /// Takes `record` (`nil`: the key has no record) as the store's state of the key under
    /// `generation`, if it is newer than what the entry knows; `force` takes it even when it
    /// is not (a fetch after a failure, or a new store).
    func receive(_ record: SyncRecord?, generation: UInt64, force: Bool) {
        receive(record, decoded: decode(record), generation: generation, force: force)
    }

    /// ``receive(_:generation:force:)`` with the record already decoded.
    func receive(_ record: SyncRecord?, decoded: Result<Value, SyncStoreError>, generation: UInt64, force: Bool) {
        guard keyProblem == nil else { return }
        let outcome: Outcome = lock.withLock {
            if generation < state.generation { return .unchanged }
            let newStore = generation > state.generation
            if newStore {
                state.generation = generation
                state.known = nil
            }
            let knownVersion = state.known?.record?.version ?? (state.known == nil ? -1 : 0)
            let version = record?.version ?? 0
            guard version > knownVersion || force || newStore else { return .unchanged }
            state.known = Known(record: record, decoded: decoded)
            guard state.pendingWrites == 0 else { return .unchanged }
            return show(state.known!)
        }
        finish(outcome)
    }

    /// What a change of the shown value calls for, once the lock is released.
    private enum Outcome {
        case unchanged
        case changed(report: SyncStoreError?)
    }

    /// Shows `known` as the value. Called with `lock` held.
    private func show(_ known: Known) -> Outcome {
        state.mustConverge = false
        switch known.decoded {
        case let .success(value):
            lockedValue = value
            state.problem = nil
            return .changed(report: nil)
        case let .failure(error):
            lockedValue = initial
            state.problem = error
            let version = known.record?.version ?? 0
            guard state.reportedProblemVersion != version else { return .changed(report: nil) }
            state.reportedProblemVersion = version
            return .changed(report: error)
        }
    }

    private func finish(_ outcome: Outcome) {
        guard case let .changed(report) = outcome else { return }
        if let report {
            coordinator.report("AppStateKit: SyncState \"\(storeKey)\" reads as its initial value: \(report)")
        }
        notifyingObservers {}
    }

    // MARK: Writing

    /// The cached value, as ``value`` reads it, and — read with it — why the store's record of
    /// this key can't be used (it doesn't decode as `Value`) when the value stands in for it
    /// with the initial value.
    var valueAndUnusableRecordProblem: (value: Value, problem: SyncStoreError?) {
        _ = value  // Tracks the access and binds a replaced store, as a read does.
        return lock.withLock { (lockedValue, state.problem) }
    }

    /// Makes `newValue` the cached value now, as a write of `data` that is in flight, and
    /// returns the unusable record it is about to replace, if the entry knows of one. Callers
    /// notify observers, before and after ``modification`` (so with no lock held).
    func beginWrite(_ newValue: Value) -> SyncStoreError? {
        lock.withLock {
            let replaced = state.problem
            lockedValue = newValue
            state.problem = nil
            state.pendingWrites += 1
            return replaced
        }
    }

    /// A write of `written` begun with ``beginWrite(_:)`` settled: committed as `record` under
    /// `generation`, or failed; with it settle the `superseded` earlier writes it replaced in
    /// the queue, which were never sent.
    func endWrite(_ result: Result<SyncRecord, any Error>, written: Value, generation: UInt64, superseded: Int) {
        let outcome: Outcome = lock.withLock {
            state.pendingWrites -= 1 + superseded
            switch result {
            case let .success(record):
                // `>=`: the feed may have delivered this very commit before the write returned.
                let isNewest = generation == state.generation && record.version >= (state.known?.record?.version ?? 0)
                if isNewest {
                    // The value is the one this process wrote: no need to decode it again.
                    state.known = Known(record: record, decoded: .success(written))
                }
                guard state.pendingWrites == 0 else { return .unchanged }
                if isNewest && !state.mustConverge { return .unchanged }
            case .failure:
                state.mustConverge = true
                guard state.pendingWrites == 0 else { return .unchanged }
            }
            // Show what the store holds (as last learned) instead of this process's writes.
            return show(state.known ?? Known(record: nil, decoded: .success(initial)))
        }
        finish(outcome)
        if case .failure = result {
            coordinator.converge(self)
        }
    }
}

/// The untyped face of a ``SyncStateEntry`` that the ``SyncCoordinator`` works with.
protocol SyncCacheEntry: AnyObject, Sendable {
    var storeKey: String { get }
    var keyProblem: SyncStoreError? { get }
    func receive(_ record: SyncRecord?, generation: UInt64, force: Bool)
}
