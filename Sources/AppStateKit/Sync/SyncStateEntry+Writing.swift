import Foundation

extension SyncStateEntry {
    /// The synchronous setter: shows `newValue` now and queues its write behind this
    /// application's earlier writes. Failures are reported, and the value then converges to the
    /// store's.
    func set(_ newValue: Value) {
        if let keyProblem {
            coordinator.report("AppStateKit: SyncState \"\(storeKey)\" was not written: \(keyProblem)")
            return
        }
        let data: Data?
        do {
            data = try SyncValueCodec.encode(newValue, key: storeKey)
        } catch {
            coordinator.report("AppStateKit: SyncState \"\(storeKey)\" was not written: \(error)")
            return
        }
        queueWrite(newValue, data: data, completion: nil)
    }

    /// Removes the key from the store (queued like ``set(_:)``), so reads return the initial
    /// value.
    func remove() {
        if let keyProblem {
            coordinator.report("AppStateKit: SyncState \"\(storeKey)\" was not reset: \(keyProblem)")
            return
        }
        queueWrite(initial, data: nil, completion: nil)
    }

    /// Shows `newValue` now, queues it, and returns once the store committed it.
    func write(_ newValue: Value) async throws -> SyncRecord {
        if let keyProblem { throw keyProblem }
        let data = try SyncValueCodec.encode(newValue, key: storeKey)
        return try await withCheckedThrowingContinuation { continuation in
            queueWrite(newValue, data: data) { continuation.resume(with: $0) }
        }
    }

    /// Shows `newValue` (whose encoding is `data`) now and queues its write; `completion`
    /// receives the outcome, or failures are reported when there is none.
    private func queueWrite(_ newValue: Value, data: Data?, completion: (@Sendable (Result<SyncRecord, any Error>) -> Void)?) {
        coordinator.noteScopedStoreOverride(storeKey: storeKey)
        let bound = coordinator.binding()
        if let replaced = beginWrite(newValue) {
            coordinator.report("AppStateKit: SyncState \"\(storeKey)\": replacing a stored value that could not be used (\(replaced))")
        }
        let key = storeKey
        let coordinator = coordinator
        coordinator.enqueue(
            SyncCoordinator.QueuedWrite(key: key, data: data, store: bound.store) { [self] result in
                endWrite(result, written: newValue, generation: bound.generation)
                if let completion {
                    completion(result)
                } else if case let .failure(error) = result {
                    coordinator.report("AppStateKit: SyncState \"\(key)\" could not be written to the sync store: \(error); it shows the store's value again")
                }
            }
        )
    }

    /// Applies `body` to the store's current value with compare-and-set, retrying on conflict,
    /// and returns the committed value.
    func update(maxAttempts: Int, _ body: (inout Value) throws -> Void) async throws -> Value {
        if let keyProblem { throw keyProblem }
        coordinator.noteScopedStoreOverride(storeKey: storeKey)
        await coordinator.barrier()
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
                try await Task.sleep(for: .microseconds(Int.random(in: 0...min(50_000, 100 << min(attempt, 9)))))
                current = (now, decoded)
            }
        }
    }

    /// Waits for this application's queued writes, fetches the key from the store and shows
    /// it; returns the store's value.
    func read() async throws -> Value {
        if let keyProblem { throw keyProblem }
        coordinator.noteScopedStoreOverride(storeKey: storeKey)
        await coordinator.barrier()
        let bound = coordinator.binding()
        let record = try await bound.store.fetchRecord(forKey: storeKey)
        let decoded = decode(record)
        receive(record, decoded: decoded, generation: bound.generation, force: false)
        return try decoded.get()
    }
}
