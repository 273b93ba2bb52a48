#if PostgreSQL
import AppStateKit
import Foundation
import PostgresNIO
import NIOConcurrencyHelpers
import ServiceLifecycle

extension PostgresSyncStore: Service {
    /// Keeps the cache in step with the table until the calling task is cancelled (or, in a
    /// `ServiceGroup`, until graceful shutdown); call it once.
    ///
    /// Each round leases one connection from the client, creates the table if missing,
    /// `LISTEN`s on the channel, loads a full snapshot (yielding every key newer than the cache
    /// on ``changes()``), then applies notifications as they arrive and checks the connection
    /// every ``heartbeatInterval``. When the connection fails, ``status`` becomes
    /// `disconnected`, the failure is reported through AppStateKit's `\.logger`, and a new round
    /// starts after ``reconnectDelay`` — so a PostgreSQL restart needs no process restart. When
    /// it returns, ``status`` is `stopped` and every feed has ended.
    public func run() async throws {
        precondition(
            runGuard.claim(),
            "AppStateKit: PostgresSyncStore.run() was called a second time; run each store once, for the life of the process (in a ServiceGroup or one task), and create a new store to run again"
        )
        defer {
            connection.stop()
            cache.finishFeeds()
        }
        try await cancelWhenGracefulShutdown {
            try await self.reconnectLoop()
        }
    }

    private func reconnectLoop() async throws {
        while !Task.isCancelled {
            do {
                // Abandonable: a failed heartbeat, or cancellation, ends the round even when an
                // await on the dead connection never returns.
                try await Abandonable.run { abandon in
                    try await self.client.withConnection { connection in
                        try await self.listen(on: connection, abandon: abandon)
                    }
                }
                throw SyncStoreError(.unavailable, key: "", detail: "the listening connection closed")
            } catch {
                if Task.isCancelled { return }
                let reason = Self.describe(error)
                let previous = connection.set(.disconnected(since: Date(), reason: reason))
                if case .disconnected = previous {} else {
                    Application.logger.error("AppStateKit: PostgresSyncStore lost PostgreSQL (table \(table)): \(reason); serving cached values, writes fail until reconnected")
                }
            }
            do {
                try await Task.sleep(for: reconnectDelay)
            } catch {
                return
            }
        }
    }

    /// One connected round: table, LISTEN, snapshot, then notifications until the connection
    /// fails. A heartbeat beside it checks the connection every ``heartbeatInterval`` and, when
    /// it fails, abandons the round through `abandon`.
    private func listen(on connection: PostgresConnection, abandon: @escaping @Sendable (any Error) -> Void) async throws {
        do {
            try await connection.query(createTableQuery, logger: queryLogger)
        } catch where ["23505", "42P07"].contains(Self.sqlState(of: error)) {
            // Instances starting together race on CREATE TABLE IF NOT EXISTS; the loser's unique
            // violation is raised once the winner committed, so the table is there.
        }
        try await connection.listen(on: table) { notifications in
            // LISTEN is active before the snapshot, so no commit falls between the two.
            let changed = cache.apply(try await selectAll(on: connection))
            let previous = self.connection.set(.connected(since: Date()))
            if case .disconnected = previous {
                Application.logger.debug("AppStateKit: PostgresSyncStore reconnected to PostgreSQL (table \(table)); resynced \(changed.count) changed keys")
            }
            let heartbeat = Task { [heartbeatInterval, queryLogger] in
                while true {
                    do {
                        try await Task.sleep(for: heartbeatInterval)
                        _ = try await OperationDeadline.run(timeout: heartbeatInterval, timeoutError: {
                            SyncStoreError(.unavailable, key: "", detail: "the listening connection did not answer SELECT 1 within \(heartbeatInterval)")
                        }) {
                            try await connection.query("SELECT 1", logger: queryLogger)
                        }
                    } catch {
                        if !Task.isCancelled { abandon(error) }
                        return
                    }
                }
            }
            defer { heartbeat.cancel() }
            for try await notification in notifications {
                try await self.refresh(from: notification.payload, on: connection)
            }
            throw SyncStoreError(.unavailable, key: "", detail: "the notification stream ended")
        }
    }

    /// Applies one notification (`"<version> <key>"`): fetches the key unless the cache already
    /// holds that version or a newer one.
    private func refresh(from payload: String, on connection: PostgresConnection) async throws {
        guard let space = payload.firstIndex(of: " "), let version = Int64(payload[..<space]) else {
            Application.logger.error("AppStateKit: PostgresSyncStore ignored a notification on channel \(table) that is not \"<version> <key>\": \(payload.prefix(300))")
            return
        }
        let key = String(payload[payload.index(after: space)...])
        guard version > cache.version(forKey: key) else { return }
        do {
            if let record = try await selectRecord(key: key, on: connection) {
                cache.apply([record])
            }
        } catch let error as SyncStoreError where error.kind == .corruptRecord {
            Application.logger.error("AppStateKit: PostgresSyncStore: \(error)")
        }
    }
}

/// Lets ``PostgresSyncStore/run()`` start only once.
final class RunGuard: Sendable {
    private let claimed = NIOLockedValueBox(false)

    /// True the first time only.
    func claim() -> Bool {
        claimed.withLockedValue { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
#endif
