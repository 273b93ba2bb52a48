import AppStateKitCore
import AppStateKitPersistence
import Foundation

extension SyncStateEntry {
    /// The synchronous setter: shows `newValue` now and queues its write in the key's lane
    /// (replacing this entry's setter write still waiting at the lane's tail, if any: see
    /// ``SyncWriteQueue``). Transient failures are retried; other failures are reported, and the
    /// value then converges to the store's.
    func set(_ newValue: Value) {
        // Observers hear of the change with no lock held (Observation.md), so `onChange` may
        // read or write this entry: before ``modification`` is taken and after it is released.
        let problem = notifyingObservers { modification.withLock(self) { assign(newValue) } }
        if let problem { coordinator.report(problem) }
    }

    /// Reads the cached value, lets `body` mutate it and assigns the result, with
    /// ``modification`` held throughout: atomic within this process (not across processes; see
    /// ``update(maxAttempts:_:)``).
    func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        var (current, unusable) = beginModification()
        // Assigned in `defer`, so a mutation that throws keeps its changes, as any `inout` access.
        defer { endModification(current, unusable: unusable) }
        return try body(&current)
    }

    /// Starts a change in place (``modify(_:)``, the handle's `value += 1`): takes
    /// ``modification`` and returns the cached value, with why the store's record can't be used
    /// when it can't.
    func beginModification() -> (value: Value, problem: SyncStoreError?) {
        willChange()
        modification.lock(self)
        return valueAndUnusableRecordProblem
    }

    /// Ends a change begun with ``beginModification()``: assigns `changed`, releases
    /// ``modification`` and reports any problem. When the store's record can't be used
    /// (`unusable`), the change ran on the initial value and nothing is written: it had no
    /// stored value to start from, and writing would replace the record (an assignment does,
    /// reporting that it did).
    func endModification(_ changed: Value, unusable: SyncStoreError?) {
        let problem = if let unusable {
            "AppStateKit: SyncState \"\(storeKey)\" was not written: its stored value could not be used (\(unusable)); "
                + "the change starts from the stored value, so the stored value is kept (assign a value or reset() to replace it)"
        } else {
            assign(changed)
        }
        modification.unlock()
        didChange()
        if let problem { coordinator.report(problem) }
    }

    /// ``set(_:)`` with ``modification`` held by the caller; returns the problem to report
    /// once it is released.
    func assign(_ newValue: Value) -> String? {
        if let keyProblem {
            return "AppStateKit: SyncState \"\(storeKey)\" was not written: \(keyProblem)"
        }
        let data: Data?
        do {
            data = try SyncValueCodec.encode(newValue, key: storeKey)
        } catch {
            return "AppStateKit: SyncState \"\(storeKey)\" was not written: \(error)"
        }
        return queueWrite(newValue, data: data, completion: nil)
    }

    /// Removes the key from the store (queued like ``set(_:)``), so reads return the initial
    /// value.
    func remove() {
        if let keyProblem {
            coordinator.report("AppStateKit: SyncState \"\(storeKey)\" was not reset: \(keyProblem)")
            return
        }
        let problem = notifyingObservers { modification.withLock(self) { queueWrite(initial, data: nil, completion: nil) } }
        if let problem { coordinator.report(problem) }
    }

    /// Shows `newValue` now, queues it, and returns once the store committed it. Cancelling the
    /// calling task ends the wait with `CancellationError`; the write stays queued.
    func write(_ newValue: Value) async throws -> SyncRecord {
        if let keyProblem { throw keyProblem }
        let data = try SyncValueCodec.encode(newValue, key: storeKey)
        let commit = CommitWait()
        let problem = notifyingObservers {
            modification.withLock(self) {
                queueWrite(newValue, data: data, completion: settling(commit))
            }
        }
        if let problem { coordinator.report(problem) }
        return try await commit.wait()
    }

    /// The completion of an awaited write: hands the outcome to `commit`'s waiter, or reports a
    /// failure when the waiter was cancelled.
    private func settling(_ commit: CommitWait) -> @Sendable (Result<SyncRecord, any Error>) -> Void {
        let key = storeKey
        let coordinator = coordinator
        return { result in
            if !commit.settle(result), case let .failure(error) = result {
                coordinator.report("AppStateKit: SyncState \"\(key)\" could not be written to the sync store: \(error) (its caller stopped waiting); it shows the store's value again")
            }
        }
    }

    /// Removes the key from the store for good (``SyncStore/delete(forKey:)``), queued behind
    /// this key's earlier writes, and returns once the store committed the removal; reads then
    /// return the initial value.
    func delete() async throws -> SyncRecord {
        if let keyProblem { throw keyProblem }
        let commit = CommitWait()
        let problem = notifyingObservers {
            modification.withLock(self) {
                queueWrite(initial, data: nil, deletes: true, completion: settling(commit))
            }
        }
        if let problem { coordinator.report(problem) }
        return try await commit.wait()
    }

    /// Shows `newValue` (whose encoding is `data`) now and queues its write (a removal for good
    /// when `deletes`); `completion` receives the outcome, or failures are reported when there
    /// is none. Returns a message to report (after releasing ``modification``) when the write
    /// replaces an unusable record.
    private func queueWrite(_ newValue: Value, data: Data?, deletes: Bool = false, completion: (@Sendable (Result<SyncRecord, any Error>) -> Void)?) -> String? {
        coordinator.noteScopedStoreOverride(storeKey: storeKey)
        let bound = coordinator.binding()
        let replaced = beginWrite(newValue)
        let key = storeKey
        let coordinator = coordinator
        // Only a setter's write may be replaced by a newer one while queued: an awaited write's
        // caller waits for its own value's commit.
        let origin = completion == nil ? ObjectIdentifier(self) : nil
        coordinator.writes.enqueue(
            SyncWriteQueue.QueuedWrite(key: key, data: data, store: bound.store, generation: bound.generation, origin: origin, deletes: deletes) { [self] result, superseded in
                endWrite(result, written: newValue, generation: bound.generation, superseded: superseded)
                if let completion {
                    completion(result)
                } else if case let .failure(error) = result {
                    coordinator.report("AppStateKit: SyncState \"\(key)\" could not be written to the sync store: \(error); it shows the store's value again")
                }
            }
        )
        return replaced.map { "AppStateKit: SyncState \"\(key)\": replacing a stored value that could not be used (\($0))" }
    }

    /// Applies `body` to the store's current value with compare-and-set, retrying on conflict,
    /// and returns the committed value.
    func update(maxAttempts: Int, _ body: (inout Value) throws -> Void) async throws -> Value {
        if let keyProblem { throw keyProblem }
        coordinator.noteScopedStoreOverride(storeKey: storeKey)
        if await coordinator.writes.barrier(mode: .attempted) == .cancelled { throw CancellationError() }
        let bound = coordinator.binding()
        var current: (record: SyncRecord?, decoded: Result<Value, SyncStoreError>)
        if let settled = settledRecord(generation: bound.generation), case .success = settled.1 {
            current = settled
        } else {
            let record = try await bound.store.fetchRecord(forKey: storeKey)
            current = (record, decode(record))
        }
        var attempt = 0
        while true {
            var value = try current.decoded.get()
            try body(&value)
            let data = try SyncValueCodec.encode(value, key: storeKey)
            switch try await bound.store.compareAndSet(data, forKey: storeKey, expectedVersion: current.record?.version ?? 0) {
            case let .committed(record):
                receive(record, decoded: .success(value), generation: bound.generation, force: false)
                return value
            case let .conflict(now):
                let decoded = decode(now)
                receive(now, decoded: decoded, generation: bound.generation, force: false)
                attempt += 1
                if attempt >= maxAttempts {
                    throw SyncStoreError(
                        .contention, key: storeKey,
                        detail: "update lost to other writers \(attempt) times in a row; the store holds version \(now?.version ?? 0)"
                    )
                }
                if attempt == 1, let committed = try await updateExclusively(body, store: bound.store) {
                    // The store held the other writers off while `body` ran on its current value.
                    receive(committed.record, decoded: .success(committed.value), generation: bound.generation, force: false)
                    return committed.value
                }
                if attempt == 1 {
                    // The store can't hold writers off, and `now` is the record that won: retry
                    // on it at once.
                    current = (now, decoded)
                } else {
                    // Others keep writing this key: back off for a random, growing while, then
                    // start from the store's newest record — `now` is stale after the pause.
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...min(50_000, 100 << min(attempt, 9)))))
                    let latest = try await bound.store.fetchRecord(forKey: storeKey)
                    current = (latest, decode(latest))
                }
            }
        }
    }

    /// An exclusive update (``ExclusiveUpdatingSyncStore``) with `body` applied to the decoded
    /// current value: the committed record and value, or `nil` when the store can't hold
    /// writers off.
    private func updateExclusively(_ body: (inout Value) throws -> Void, store: any SyncStore) async throws -> (record: SyncRecord, value: Value)? {
        var committed: Value?
        let transform = { (record: SyncRecord?) throws -> Data? in
            var value = try self.decode(record).get()
            try body(&value)
            let data = try SyncValueCodec.encode(value, key: self.storeKey)
            committed = value
            return data
        }
        return try await withoutActuallyEscaping(transform) { transform in
            let lent = CallerBoundTransform(transform)
            defer { lent.revoke() }
            guard let record = try await store.exclusiveUpdate(forKey: storeKey, { try lent($0) }) else { return nil }
            lent.revoke()
            guard let committed else {
                throw SyncStoreError(.corruptRecord, key: storeKey, detail: "the store committed version \(record.version) without running the update's transform")
            }
            return (record, committed)
        }
    }

    /// Waits for this application's queued writes, fetches the key from the store and shows
    /// it; returns the store's value.
    func read() async throws -> Value {
        if let keyProblem { throw keyProblem }
        coordinator.noteScopedStoreOverride(storeKey: storeKey)
        if await coordinator.writes.barrier(mode: .attempted) == .cancelled { throw CancellationError() }
        let bound = coordinator.binding()
        let record = try await bound.store.fetchRecord(forKey: storeKey)
        let decoded = decode(record)
        receive(record, decoded: decoded, generation: bound.generation, force: false)
        return try decoded.get()
    }
}

/// The caller's wait for one queued write's outcome, which cancelling the calling task ends
/// with `CancellationError` (the write stays queued). The outcome may come before the wait
/// begins; each side acts once.
final class CommitWait: Sendable {
    private enum State: Sendable {
        case pending
        case waiting(CheckedContinuation<SyncRecord, any Error>)
        case settled(Result<SyncRecord, any Error>)
        /// The caller stopped waiting (cancelled).
        case abandoned
    }

    private let state = LockedBox(State.pending)

    /// Hands `result` to the waiter; returns `false` when the waiter stopped waiting.
    func settle(_ result: Result<SyncRecord, any Error>) -> Bool {
        let (waiter, taken): (CheckedContinuation<SyncRecord, any Error>?, Bool) = state.withLock { state in
            switch state {
            case let .waiting(continuation):
                state = .settled(result)
                return (continuation, true)
            case .pending:
                state = .settled(result)
                return (nil, true)
            case .settled, .abandoned:
                return (nil, false)
            }
        }
        waiter?.resume(with: result)
        return taken
    }

    /// The outcome, once settled.
    ///
    /// - Throws: The write's error, or `CancellationError` when the calling task is cancelled
    ///   first.
    func wait() async throws -> SyncRecord {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now: Result<SyncRecord, any Error>? = state.withLock { state in
                    switch state {
                    case .pending:
                        state = .waiting(continuation)
                        return nil
                    case let .settled(result):
                        return result
                    case .abandoned, .waiting:
                        return .failure(CancellationError())
                    }
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<SyncRecord, any Error>? = state.withLock { state in
                switch state {
                case let .waiting(continuation):
                    state = .abandoned
                    return continuation
                case .pending:
                    state = .abandoned
                    return nil
                case .settled, .abandoned:
                    return nil
                }
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
