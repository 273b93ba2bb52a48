#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation
import PostgresNIO
import ServiceLifecycle

extension PostgresSyncStore: Service {
    /// Keeps the cache in step with the table until the calling task is cancelled (or, in a
    /// `ServiceGroup`, until graceful shutdown); call it once.
    ///
    /// Each round finds the table with `to_regclass` (and creates it only when there is none and
    /// ``Configuration/createsTable`` is set), then:
    /// - listening (the default): leases one connection, `LISTEN`s on the channel, loads a
    ///   snapshot, then applies notifications as they arrive, checks the connection every
    ///   ``Configuration/heartbeatInterval`` and reconciles every
    ///   ``Configuration/reconcileInterval``;
    /// - poll-only (``Configuration/listensForNotifications`` off): holds no connection and
    ///   reconciles every ``Configuration/reconcileInterval`` on a pooled one.
    ///
    /// A snapshot or reconciliation is authoritative: a key whose row is gone is removed from the
    /// cache, a lower version replaces a higher one, and the feeds say so. When a round fails,
    /// ``currentStatus`` becomes `stale` (`unavailable` before any values were loaded; at boot
    /// with a ``Configuration/lastKnownGoodFile``, `stale` serving that copy), the failure is
    /// reported once through the store's ``logger``, and a new round starts after
    /// ``Configuration/reconnectDelay``.
    ///
    /// On graceful shutdown (in a `ServiceGroup`: SIGTERM, say) it first sends every SyncState
    /// write this process queued for the store (`Application.flushSyncWrites(to:timeout:)`,
    /// within the operation timeout), so list the client before the store: the group stops the
    /// store first, while the client still runs. Cancelling the calling task stops at once. When
    /// it returns, ``currentStatus`` is `stopped` and every feed has ended.
    public func run() async throws {
        guard runGuard.claim() else {
            throw SyncStoreError(.refused, key: "", detail: "PostgresSyncStore.run() was called a second time (table \(tableDescription)); run each store once, for the life of the process (in a ServiceGroup or one task), and create a new store to run again")
        }
        defer {
            connection.stop()
            cache.finishFeeds()
            lastKnownGoodRequests.continuation.finish()
        }
        await withTaskGroup(of: Void.self) { group in
            if let lastKnownGood {
                let events = cache.makeEventFeed(keepingNewest: 1)
                group.addTask { [lastKnownGoodRequests] in
                    for await _ in events { lastKnownGoodRequests.continuation.yield() }
                }
                group.addTask { await self.keepSaving(lastKnownGood) }
            }
            defer { group.cancelAll() }
            // The rounds run in a child task beside this wait, so a graceful shutdown can drain
            // pending writes through them before they stop (the group's cancellation).
            group.addTask { await self.reconnectLoop() }
            do {
                try await gracefulShutdown()
                await drainPendingWrites()
            } catch {
                // Cancelled, not a graceful shutdown: stop at once.
            }
        }
    }

    /// On graceful shutdown, before the store stops: sends every SyncState write this process
    /// queued for the store, within the operation timeout; what is still pending then is
    /// reported (by key) and lost with the process.
    private func drainPendingWrites() async {
        do {
            try await Application.flushSyncWrites(to: self, timeout: operationTimeout + Self.clientDeadlineGrace)
        } catch {
            logger.error("AppStateKit: PostgresSyncStore (table \(tableDescription)) stopped before every queued SyncState write was committed: \(error)")
        }
    }

    private func reconnectLoop() async {
        while !Task.isCancelled {
            do {
                if configuration.listensForNotifications {
                    try await listeningRound()
                } else {
                    try await pollingRound()
                }
            } catch {
                if Task.isCancelled { return }
                noteFailure(error)
            }
            do {
                try await clock.sleep(for: reconnectDelay)
            } catch {
                return
            }
        }
    }

    /// Records a failed round in ``currentStatus`` (reported once per outage), and at boot falls back
    /// to the last-known-good copy.
    private func noteFailure(_ error: any Error) {
        let reason = classify(error, operation: "snapshot", key: "", writes: false).detail
        metrics.reconnects.increment()
        let now = Date()
        switch connection.status {
        case .servingLastKnownGood(let savedAt, let since, _):
            connection.set(.servingLastKnownGood(savedAt: savedAt, since: since, reason: reason))
            return
        case .disconnected(let since, _):
            connection.set(.disconnected(since: since, reason: reason))
            return
        case .starting:
            if !valuesLoaded.isOpen, let lastKnownGood, serveLastKnownGood(lastKnownGood, reason: reason) { return }
        case .connected, .stopped:
            break
        }
        connection.set(.disconnected(since: now, reason: reason))
        logger.error("AppStateKit: PostgresSyncStore lost PostgreSQL (table \(tableDescription)): \(reason); serving cached values, writes fail until reconnected")
    }

    /// Loads the last-known-good copy into the cache; false when there is none or it is
    /// unreadable (reported).
    private func serveLastKnownGood(_ file: LastKnownGoodFile, reason: String) -> Bool {
        do {
            guard let loaded = try file.load(table: tableDescription, namespace: namespaceValue) else { return false }
            for (key, why) in loaded.damaged {
                damage.report(key: key, reason: "last-known-good: \(why)") {
                    "AppStateKit: PostgresSyncStore skipped the record of key \"\(SyncInputBounds.escapedPrefix(key))\" in its last-known-good file \(file.url.path): \(why); the other keys are served, and the next snapshot replaces the file"
                }
            }
            cache.apply(loaded.records.map { StampedRecord($0, stamp: nil) })
            connection.set(.servingLastKnownGood(savedAt: loaded.savedAt, since: Date(), reason: reason))
            valuesLoaded.open()
            logger.error("AppStateKit: PostgresSyncStore cannot reach PostgreSQL (table \(tableDescription)): \(reason); serving the last-known-good copy \(file.url.path) saved at \(loaded.savedAt) until it answers")
            return true
        } catch {
            logger.error("AppStateKit: PostgresSyncStore could not read its last-known-good file \(file.url.path): \(error); serving initial values until PostgreSQL answers")
            return false
        }
    }

    /// One listening round: table, LISTEN, snapshot, then notifications, heartbeats and
    /// reconciliations, one at a time on the leased connection, until something fails.
    private func listeningRound() async throws {
        let deadline = operationTimeout + Self.clientDeadlineGrace
        try await Abandonable.run { abandon in
            // Connecting, finding the table, LISTEN and the first snapshot: within one deadline.
            let setup = Task {
                do { try await self.clock.sleep(for: deadline) } catch { return }
                abandon(SyncStoreError(.unavailable, key: "", detail: "PostgreSQL did not answer within \(deadline) (connecting, finding the table, LISTEN and the first snapshot)"))
            }
            defer { setup.cancel() }
            try await self.client.withConnection { connection in
                try await self.prepareTable(on: connection)
                try await connection.listen(on: self.channel) { notifications in
                    // LISTEN is active before the snapshot, so no commit falls between the two.
                    try await self.reconcile(on: connection)
                    setup.cancel()
                    self.markConnected()
                    try await self.serve(notifications, on: connection, abandon: abandon)
                }
            }
            throw SyncStoreError(.unavailable, key: "", detail: "the listening connection closed")
        }
    }

    /// Handles notifications and timer ticks one at a time, each within the operation deadline;
    /// a failure abandons the round (the connection may be dead, so nothing waits on it).
    ///
    /// Notifications are hints from anyone who can log in, so what the forwarder hears goes
    /// into a bounded ``NotificationBuffer`` (coalesced per key; when full, "reconcile soon")
    /// and the loop is woken through a one-element stream: a flood costs a bounded amount of
    /// memory and at most one read per buffered key or one reconciliation per wake.
    private func serve(
        _ notifications: PostgresNotificationSequence,
        on connection: PostgresConnection,
        abandon: @escaping @Sendable (any Error) -> Void
    ) async throws {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let signals = RoundSignals()
        let buffer = notificationBuffer
        let forwarder = Task {
            do {
                for try await notification in notifications {
                    self.hear(notification.payload, into: buffer)
                    wake.yield()
                }
                signals.end(nil)
            } catch {
                signals.end(error)
            }
            wake.yield()
        }
        let tick = min(heartbeatInterval, configuration.reconcileInterval)
        let clock = clock
        let ticker = Task {
            while true {
                do { try await clock.sleep(for: tick) } catch { return }
                signals.tick()
                wake.yield()
            }
        }
        defer {
            forwarder.cancel()
            ticker.cancel()
            wake.finish()
        }
        // What the buffer held before this round is covered by the round's snapshot.
        _ = buffer.take()
        var lastReconciliation = clock.now
        for await _ in wakes {
            do {
                if let ended = signals.ended {
                    throw ended ?? SyncStoreError(.unavailable, key: "", detail: "the notification stream ended")
                }
                let (pending, overflowed) = buffer.take()
                // More keys than a few reads are worth: one reconciliation reads them all.
                let reconcileSoon = overflowed || pending.count > Self.refreshBatchLimit
                let reconciliationDue = lastReconciliation.duration(to: clock.now) >= configuration.reconcileInterval
                if reconcileSoon || reconciliationDue {
                    if !reconciliationDue {
                        // A flood: at most one reconciliation per Self.floodReconcileSpacing.
                        let spacing = min(Self.floodReconcileSpacing, configuration.reconcileInterval)
                        let ready = lastReconciliation.advanced(by: spacing)
                        try await clock.sleep(until: ready)
                        _ = buffer.take()
                    }
                    try await bounded { try await self.reconcile(on: connection, collectingTombstones: reconciliationDue) }
                    lastReconciliation = clock.now
                    _ = signals.takeTick()
                } else if !pending.isEmpty {
                    for notification in pending {
                        try await bounded { try await self.refresh(from: notification, on: connection) }
                    }
                    _ = signals.takeTick()
                } else if signals.takeTick() {
                    try await bounded {
                        _ = try await connection.query("SELECT 1", logger: self.logger)
                    }
                }
            } catch {
                abandon(error)
                throw error
            }
        }
    }

    /// The shortest pause between two reconciliations a notification flood asks for.
    static let floodReconcileSpacing: Duration = .milliseconds(250)
    /// The most keys one wake reads one by one; more, and it reconciles instead.
    static let refreshBatchLimit = 32

    /// Parses one payload into `buffer`; a malformed one is counted, and reported (escaped and
    /// cut) at most once per ``NotificationBuffer/reportInterval``.
    private func hear(_ payload: String, into buffer: NotificationBuffer) {
        let now = SyncInputBounds.nowMicroseconds()
        switch SyncNotification.parse(payload, now: now) {
        case .success(let notification):
            metrics.notificationLag.recordMicroseconds(notification.lagMicroseconds(now: now))
            let dropped = buffer.droppedCount
            buffer.offer(notification)
            if buffer.droppedCount != dropped { metrics.droppedNotifications.increment() }
        case .failure(let malformed):
            metrics.malformedNotifications.increment()
            if let count = buffer.noteMalformed() {
                logger.error("AppStateKit: PostgresSyncStore ignored \(count) malformed notification\(count == 1 ? "" : "s") on channel \(channel) (anyone who can log in can send them; reported at most every \(NotificationBuffer.reportInterval)); the latest \(malformed): \"\(SyncInputBounds.escapedPrefix(payload))\"")
            }
        }
    }

    /// One poll-only round: the table, then a reconciliation every interval on a pooled
    /// connection, until one fails.
    private func pollingRound() async throws {
        try await bounded { try await self.prepareTable(on: nil) }
        while true {
            try await bounded { try await self.reconcile(on: nil) }
            markConnected()
            try await clock.sleep(for: configuration.reconcileInterval)
        }
    }

    /// `body` within the operation deadline.
    private func bounded<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let deadline = operationTimeout + Self.clientDeadlineGrace
        return try await OperationDeadline.run(timeout: deadline, clock: clock, timeoutError: {
            SyncStoreError(.unavailable, key: "", detail: "PostgreSQL did not answer within \(deadline)")
        }, body)
    }

    private func markConnected() {
        let previous = connection.set(.connected(since: Date()))
        switch previous {
        case .disconnected, .servingLastKnownGood:
            logger.debug("AppStateKit: PostgresSyncStore reconnected to PostgreSQL (table \(tableDescription))")
        case .starting, .connected, .stopped:
            break
        }
    }

    /// Finds the table with `to_regclass` (no privilege needed) and creates it only when it is
    /// missing and the store may; then lets waiting operations through.
    func prepareTable(on connection: PostgresConnection?) async throws {
        let exists = try await run(tableExistsQuery, on: connection)
        if !exists {
            guard configuration.createsTable else {
                throw SyncStoreError(.refused, key: "", detail: "table \(tableDescription) does not exist and Configuration.createsTable is off: create it as its owner with the SQL PostgresSyncStore.migrationSQL(configuration:) prints")
            }
            do {
                _ = try await run(createTableQuery, on: connection)
                logger.debug("AppStateKit: PostgresSyncStore created table \(tableDescription)")
            } catch where ["23505", "42P07"].contains(Self.sqlState(of: error)) {
                // Instances starting together race on CREATE TABLE IF NOT EXISTS; the loser's
                // unique violation is raised once the winner committed, so the table is there.
            }
        }
        tablePrepared.open()
    }

    /// Runs `query` (one row of one optional text column) and returns whether its value is
    /// non-NULL.
    private func run(_ query: PostgresQuery, on connection: PostgresConnection?) async throws -> Bool {
        let rows = if let connection {
            try await connection.query(query, logger: logger)
        } else {
            try await client.query(query, logger: logger)
        }
        var found = false
        for try await row in rows {
            if try row.decode(String?.self) != nil { found = true }
        }
        return found
    }

    /// Compares the cache with the table and takes the table's rows as authoritative (damaged
    /// rows aside: the cache keeps what it knew of their keys); counts the repairs (after the
    /// first load), and deletes the namespace's expired tombstones. The first load saves the
    /// last-known-good copy before it lets waiting callers through.
    func reconcile(on connection: PostgresConnection?, collectingTombstones: Bool = true) async throws {
        // Measured in real time for the metric, not on the store's clock: a duration, not a wait.
        let started = ContinuousClock.now
        let token = cache.token()
        let read = try await transaction(on: connection) { connection in
            try await self.selectAll(on: connection)
        }
        let repairs = cache.replaceAll(with: read.records, since: token, keeping: read.damaged)
        let elapsed = (ContinuousClock.now - started).components
        metrics.reconciliationDuration.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        metrics.snapshotRecords.record(read.records.count)
        if databaseLoaded.isOpen {
            if repairs > 0 {
                metrics.reconciliationRepairs.increment(by: Int64(repairs))
                logger.debug("AppStateKit: PostgresSyncStore's reconciliation of table \(tableDescription) repaired \(repairs) keys")
            }
            if collectingTombstones { try await collectTombstones(on: connection) }
        } else {
            // A process that becomes ready and exits at once still leaves a copy.
            if let lastKnownGood { await save(lastKnownGood) }
            databaseLoaded.open()
            valuesLoaded.open()
        }
        if lastKnownGood != nil { lastKnownGoodRequests.continuation.yield() }
    }

    /// Deletes the namespace's tombstones older than ``Configuration/tombstoneRetention``; a
    /// failure is reported, not fatal.
    private func collectTombstones(on connection: PostgresConnection?) async throws {
        do {
            try await transaction(on: connection) { connection in
                _ = try await connection.query(self.collectTombstonesQuery, logger: self.logger)
            }
        } catch let error where Self.sqlState(of: error) != nil {
            logger.error("AppStateKit: PostgresSyncStore could not collect expired tombstones: \(classify(error, operation: "tombstone collection", key: "", writes: true))")
        }
    }

    /// Applies one notification: fetches the key unless the cache already holds that very
    /// write, and takes the row as authoritative (a damaged row is reported and leaves the
    /// cache as it was).
    private func refresh(from notification: SyncNotification, on connection: PostgresConnection) async throws {
        if let cached = cache.stamped(forKey: notification.key), cached.record.version == notification.version, cached.stamp == notification.stamp { return }
        let token = cache.token()
        switch try await readRow(key: notification.key, on: connection) {
        case .absent: cache.replace(key: notification.key, with: nil, since: token)
        case .record(let record): cache.replace(key: notification.key, with: record, since: token)
        case .damaged: break
        }
    }

    /// Saves the last-known-good copy whenever asked, until cancelled; only values loaded from
    /// the database are saved.
    private func keepSaving(_ file: LastKnownGoodFile) async {
        for await _ in lastKnownGoodRequests.stream {
            guard databaseLoaded.isOpen else { continue }
            await save(file)
        }
    }

    /// Saves the cache as the last-known-good copy, on the copy's own queue (blocking file I/O
    /// stays off the cooperative pool); a failure is reported, not fatal.
    func save(_ file: LastKnownGoodFile) async {
        let records = cache.allRecords()
        let table = tableDescription
        let namespace = namespaceValue
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            file.queue.async {
                do {
                    try file.save(records, table: table, namespace: namespace)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error)
                }
            }
        }
        if let failure {
            logger.error("AppStateKit: PostgresSyncStore could not save its last-known-good file \(file.url.path): \(failure)")
        }
    }
}

/// What the notification forwarder and the ticker tell a listening round's loop.
private final class RoundSignals: Sendable {
    private struct State {
        var ended: (any Error)??
        var ticked = false
    }

    private let state = LockedBox(State())

    /// The notification stream ended (with its error, if any).
    func end(_ error: (any Error)?) {
        state.withLock { $0.ended = .some(error) }
    }

    /// `nil` while the stream runs; then `.some(error)`.
    var ended: (any Error)?? { state.withLock { $0.ended } }

    func tick() {
        state.withLock { $0.ticked = true }
    }

    /// Whether a tick came since the last call.
    func takeTick() -> Bool {
        state.withLock { state in
            defer { state.ticked = false }
            return state.ticked
        }
    }
}

/// Lets ``PostgresSyncStore/run()`` start only once.
final class RunGuard: Sendable {
    private let claimed = LockedBox(false)

    /// True the first time only.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
#endif
