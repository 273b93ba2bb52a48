#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import MetricsTestKit
import PostgresNIO
import Testing

/// What operators see: the status as a sequence, the swift-metrics instruments, and messages
/// free of postgres-nio's internal type names.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresObservabilityTests {
    @Test func statusUpdatesFollowTheConnectionAndEndWithStopped() async throws {
        let table = PostgresTestServer.uniqueTable("status")
        let victim = "status_\(table)"
        try await PostgresTestServer.createTable(PostgresTestServer.storeConfiguration(table: table))
        let client = PostgresClient(configuration: PostgresTestServer.configuration(applicationName: victim))
        let store = PostgresSyncStore(client: client, configuration: PostgresTestServer.storeConfiguration(table: table))
        let updates = store.statusUpdates()
        let collected = Task {
            var kinds: [String] = []
            for await status in updates { kinds.append(String(status.description.prefix { $0 != " " })) }
            return kinds
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            let run = Task { try await store.run() }
            try await store.waitUntilReady(timeout: .seconds(30))
            // Subscribed before the disconnection, so the wait below sees it and the reconnection
            // (polling `status` could find it still connected before the store noticed).
            let watcher = store.statusUpdates()
            let reconnected = Task {
                var sawStale = false
                for await status in watcher {
                    let kind = status.description.prefix { $0 != " " }
                    if kind == "stale" { sawStale = true } else if sawStale, kind == "live" { return true }
                }
                return false
            }
            let deadline = Task {
                try await Task.sleep(for: .seconds(60))
                reconnected.cancel()
            }
            try await PostgresTestServer.withClient(PostgresTestServer.configuration) { other in
                try await PostgresFailureTests.terminateBackends(of: victim, using: other)
            }
            #expect(await reconnected.value, "the store went stale and live again within 60 s")
            deadline.cancel()
            run.cancel()
            _ = await run.result
            group.cancelAll()
        }
        let kinds = await collected.value
        #expect(kinds.first == "starting")
        #expect(kinds.last == "stopped")
        // Disconnected after loading values: stale (the cache still serves them), then live again.
        let pattern = kinds.filter { $0 != "stale" }
        #expect(pattern == ["starting", "live", "live", "stopped"], "\(kinds)")
        #expect(kinds.contains("stale"))
        try await PostgresTestServer.dropTable(PostgresTestServer.storeConfiguration(table: table))
    }

    @Test func metricsCountWritesByResultReconnectsAndTheSnapshot() async throws {
        let table = PostgresTestServer.uniqueTable("metrics")
        let victim = "metrics_\(table)"
        let metrics = TestMetrics()
        try await PostgresTestServer.withStore(table: table, applicationName: victim, configure: { $0.metricsFactory = metrics }) { store, client in
            _ = try await store.write(.json("1"), forKey: "a")
            _ = try await store.compareAndSet(.json("2"), forKey: "a", expectedVersion: 1)
            _ = try await store.compareAndSet(.json("3"), forKey: "a", expectedVersion: 1)
            let dimensions = [("table", table), ("namespace", "")]
            #expect(metrics.counterTotal(label: "appstatekit_sync_writes_total", dimensions: dimensions + [("result", "committed")]) == 2)
            #expect(metrics.counterTotal(label: "appstatekit_sync_writes_total", dimensions: dimensions + [("result", "conflict")]) == 1)
            let snapshotRecords = try metrics.expectGauge("appstatekit_sync_snapshot_records", dimensions)
            #expect(snapshotRecords.lastValue == 0, "the snapshot at start held no rows")
            let pending = try metrics.expectGauge("appstatekit_sync_pending_writes", dimensions)
            #expect(pending.lastValue == 0)
            #expect(pending.values.contains(1))
            try await PostgresFailureTests.terminateBackends(of: victim, using: client)
            try await PostgresTestServer.eventually("a reconnect to be counted") {
                metrics.counterTotal(label: "appstatekit_sync_reconnects_total") >= 1
            }
            try await PostgresTestServer.waitUntilConnected(store)
            try await PostgresTestServer.eventually("the reconnect snapshot to be recorded") {
                snapshotRecords.lastValue == 1
            }
            #expect(try metrics.expectTimer("appstatekit_sync_notification_lag", dimensions).values.count >= 1)
        }
    }

    @Test func aClientThatShutDownIsNamedPlainly() async throws {
        let table = PostgresTestServer.uniqueTable("pool_down")
        try await PostgresTestServer.createTable(PostgresTestServer.storeConfiguration(table: table))
        let client = PostgresClient(configuration: PostgresTestServer.configuration)
        var configuration = PostgresTestServer.storeConfiguration(table: table)
        configuration.createsTable = false
        let store = PostgresSyncStore(client: client, configuration: configuration)
        let clientTask = Task { await client.run() }
        _ = try await store.fetchRecord(forKey: "k")
        clientTask.cancel()
        _ = await clientTask.value
        let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("1"), forKey: "k") }
        #expect(error?.kind == .unavailable)
        #expect(error?.description.contains("ConnectionPoolError") == false, "\(String(describing: error))")
        #expect(error?.description.contains("_ConnectionPoolModule") == false)
        #expect(error?.detail.contains("the PostgresClient has shut down") == true, "\(String(describing: error))")
        try await PostgresTestServer.dropTable(configuration)
    }
}
}
#endif
