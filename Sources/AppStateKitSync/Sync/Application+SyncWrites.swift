import AppStateKitCore
import AppStateKitPersistence
extension Application {
    /// Returns once every SyncState write this application made before the call (setter
    /// assignments, `reset()`, `write(_:)`) has been committed to its store.
    ///
    /// A command-line tool calls it before it exits, a test before it checks the store, and a
    /// server's shutdown before it closes the store:
    ///
    /// ```swift
    /// Application.syncState(\.maintenance).value = true
    /// try await Application.flushSyncWrites(timeout: .seconds(10))
    /// ```
    ///
    /// Writes made after the call are not waited for. A setter's write that fails with a
    /// transient error (``SyncStoreError/isTransient``) is retried until it commits, so the
    /// flush waits for the store to come back, up to `timeout`.
    ///
    /// Cancelling the calling task ends the wait at once with `CancellationError`; the writes
    /// stay queued.
    ///
    /// - Throws: ``SyncFlushError`` naming the keys whose writes were still pending when
    ///   `timeout` passed (they stay queued and keep being retried), or that failed for good;
    ///   `CancellationError` when the calling task was cancelled.
    public static func flushSyncWrites(timeout: Duration) async throws {
        let coordinator = SyncCoordinator.of(current.registry)
        try check(await coordinator.writes.barrier(mode: .committed, timeout: timeout))
    }

    /// Returns once every SyncState write made before the call, by any application of this
    /// process, to `store` has been committed: what a store's graceful shutdown calls before it
    /// stops accepting writes, so that no queued assignment is lost.
    ///
    /// - Throws: ``SyncFlushError`` as ``flushSyncWrites(timeout:)`` does; `CancellationError`
    ///   when the calling task was cancelled (the writes stay queued).
    public static func flushSyncWrites(to store: any SyncStore, timeout: Duration) async throws {
        let coordinators = SyncCoordinator.live.withLock { $0.values.compactMap(\.coordinator) }
        let outcomes = await withTaskGroup(of: SyncWriteQueue.BarrierOutcome.self) { group in
            for coordinator in coordinators {
                group.addTask { await coordinator.writes.barrier(mode: .committed, store: store, timeout: timeout) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var pending: Set<String> = []
        var failed: Set<String> = []
        for outcome in outcomes {
            switch outcome {
            case .done: break
            case let .timedOut(keys): pending.formUnion(keys)
            case let .failed(keys): failed.formUnion(keys)
            case .cancelled: break
            }
        }
        try Task.checkCancellation()
        if !pending.isEmpty { throw SyncFlushError(keys: pending.sorted(), timedOut: true) }
        if !failed.isEmpty { throw SyncFlushError(keys: failed.sorted(), timedOut: false) }
    }

    /// The number of SyncState values this application has queued for its store and not yet
    /// committed (a burst of assignments to one key counts once): 0 when everything is written.
    /// It stays above 0 while the store is unreachable and setter writes are being retried.
    public static var pendingSyncWrites: Int {
        SyncCoordinator.of(current.registry).writes.pending.count
    }

    /// The store keys with SyncState writes of this application not yet committed, sorted.
    public static var pendingSyncWriteKeys: [String] {
        SyncCoordinator.of(current.registry).writes.pending.keys
    }

    /// Removes a sync state's key from the store for good and waits for the store to commit
    /// the removal: the same as `Application.syncState(keyPath).resetDurably()`.
    ///
    /// Deprecated because its name says the opposite of what ``remove(state:)`` means for every
    /// kind: this deletes what is persisted and leaves the entry in place, as every kind's reset
    /// does. It keeps doing so, so code written against it behaves as before.
    ///
    /// Cancelling the calling task ends the wait with `CancellationError`; the removal stays
    /// queued (a later failure is reported through the application's logger).
    ///
    /// - Throws: ``SyncStoreError`` from the store (the value then returns to the store's), or
    ///   `CancellationError`.
    @available(*, deprecated, message: "use Application.syncState(keyPath).resetDurably(), which deletes the key from the store; Application.remove(state:) drops the in-memory entry")
    public static func remove<Value: Codable & Sendable>(syncState keyPath: KeyPath<Application, SyncState<Value>>) async throws {
        try await current[keyPath: keyPath].resetDurably()
    }

    private static func check(_ outcome: SyncWriteQueue.BarrierOutcome) throws {
        switch outcome {
        case .done: return
        case let .timedOut(keys): throw SyncFlushError(keys: keys, timedOut: true)
        case let .failed(keys): throw SyncFlushError(keys: keys, timedOut: false)
        case .cancelled: throw CancellationError()
        }
    }
}
