#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import PostgresNIO
import Testing

/// Losing the connection: cached reads keep serving, writes fail with `unavailable`, and after
/// reconnecting the store resyncs from a snapshot — also across a PostgreSQL restart.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresFailureTests {
    /// Kills the connections of the clients created with `applicationName`.
    static func terminateBackends(of applicationName: String, using client: PostgresClient) async throws {
        try await client.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE application_name = \(applicationName) AND pid <> pg_backend_pid()
            """)
    }

    @Test func whileDisconnectedReadsServeTheCacheWritesFailAndTheResyncYieldsMissedChanges() async throws {
        let table = PostgresTestServer.uniqueTable("resync")
        // A long reconnect delay leaves a window in which other instances commit unheard.
        let victim = "victim_\(table)"
        try await PostgresTestServer.withStore(table: table, reconnectDelay: .seconds(3), applicationName: victim) { store, _ in
            _ = try await store.write(.json("1"), forKey: "a")
            _ = try await store.write(.json("1"), forKey: "b")
            var feed = store.changeFeed().makeAsyncIterator()

            let admin = PostgresClient(configuration: PostgresTestServer.configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await admin.run() }
                defer { group.cancelAll() }
                try await Self.terminateBackends(of: victim, using: admin)
                try await PostgresTestServer.eventually("the store to notice the lost connection") {
                    if case .stale = store.currentStatus { return true }
                    return false
                }
                // Reads keep serving what was known.
                let cachedA = try store.cachedRecord(forKey: "a")
                #expect(PostgresTestServer.text(cachedA) == "1")
                // Writes fail at once, clearly, and nothing is written.
                let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("99"), forKey: "a") }
                #expect(error?.kind == .unavailable)
                #expect(error?.description.contains("the write was not sent, the store is reconnecting") == true)
                // Another instance commits while this one isn't listening: its notification is lost.
                try await admin.query("""
                    UPDATE \(unescaped: table) SET value = '2', version = version + 1 WHERE key = 'b'
                    """)
                // The resync after reconnecting finds it and yields it on the feed, as a
                // replacement holding every record.
                let resync = await feed.next()
                guard case let .replaced(records)? = resync else {
                    Issue.record("expected the resync's replacement, got \(String(describing: resync))")
                    return
                }
                #expect(Set(records.map(\.key)) == ["a", "b"])
                #expect(records.contains(SyncRecord(key: "b", value: .json("2"), version: 2)))
                let (resyncedA, resyncedB) = (try store.cachedRecord(forKey: "a"), try store.cachedRecord(forKey: "b"))
                #expect(PostgresTestServer.text(resyncedB) == "2")
                #expect(PostgresTestServer.text(resyncedA) == "1")
                try await PostgresTestServer.waitUntilConnected(store)
                let afterReconnect = try await store.write(.json("3"), forKey: "a")
                #expect(afterReconnect.version == 2)
            }
        }
    }

    @Test(.enabled(if: PostgresTestServer.clusterDirectory != nil, "APPSTATEKIT_POSTGRES_DIR is not set: the test restarts the server through .ci/postgres/restart.sh"))
    func restartingPostgreSQLMidRunEveryInstanceConvergesAndNoAcknowledgedWriteIsLost() async throws {
        let table = PostgresTestServer.uniqueTable("restart")
        try await PostgresTestServer.withStore(table: table, dropTable: false) { _, _ in }
        // Three instances, each with its own client, writing their own key and reading all keys.
        let clients = (0..<3).map { _ in PostgresClient(configuration: PostgresTestServer.configuration) }
        let stores = clients.map {
            PostgresSyncStore(client: $0, table: table, operationTimeout: .seconds(3), reconnectDelay: .milliseconds(300), heartbeatInterval: .seconds(1))
        }
        let acknowledged = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<3 {
                group.addTask { await clients[index].run(); return (-1, 0) }
                group.addTask { try await stores[index].run(); return (-1, 0) }
            }
            for store in stores { try await PostgresTestServer.waitUntilConnected(store) }
            let stop = ContinuousClock.now + .seconds(6)
            for index in 0..<3 {
                group.addTask {
                    var last = 0
                    var next = 1
                    while ContinuousClock.now < stop {
                        do {
                            _ = try await stores[index].write(.json(String(next)), forKey: "w\(index)")
                            last = next
                            next += 1
                        } catch let error as SyncStoreError where error.kind == .unavailable {
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                    return (index, last)
                }
            }
            try await Task.sleep(for: .seconds(2))
            try await PostgresTestServer.restartServer(down: 1)
            var acknowledged = [Int](repeating: 0, count: 3)
            var finishedWriters = 0
            while finishedWriters < 3, let (index, last) = try await group.next() {
                acknowledged[index] = last
                finishedWriters += 1
            }
            // Every instance converges on what the table holds, with every acknowledged write,
            // once it is back: an instance may still be reconnecting when the writers stop (its
            // heartbeat noticed the restart late), and a snapshot needs the connection.
            for store in stores { try await PostgresTestServer.waitUntilConnected(store) }
            let truth = try await stores[0].snapshot()
            for store in stores {
                try await PostgresTestServer.eventually("every instance to converge") {
                    truth.allSatisfy { (try? store.cachedRecord(forKey: $0.key)) == $0 }
                }
            }
            group.cancelAll()
            return (acknowledged, truth)
        }
        let (lastAcknowledged, truth) = acknowledged
        for index in 0..<3 {
            let stored = truth.first { $0.key == "w\(index)" }
            let value = try #require(PostgresTestServer.text(stored).flatMap { Int($0) })
            #expect(lastAcknowledged[index] > 0)
            // Sequential writes: the table holds the last acknowledged one, or one in doubt after it.
            #expect(value == lastAcknowledged[index] || value == lastAcknowledged[index] + 1)
        }
        try await PostgresTestServer.withStore(table: table) { _, _ in }
    }
}

}
#endif
