#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import PostgresNIO
import Testing

/// Two apps sharing one table through namespaces, and the tombstones' retention.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresNamespaceTests {
    @Test func namespacesSeparateAppsSharingATable() async throws {
        let table = PostgresTestServer.uniqueTable("namespaces")
        try await PostgresTestServer.withStore(table: table, configure: { $0.namespace = "checkout" }) { checkout, _ in
            try await PostgresTestServer.withStore(table: table, dropTable: false, configure: { $0.namespace = "search" }) { search, _ in
                var searchFeed = SyncChange.records(of: search.changeFeed()).makeAsyncIterator()
                _ = try await checkout.write(.json("1"), forKey: "App/limit")
                _ = try await checkout.write(.json("2"), forKey: "App/limit")
                _ = try await checkout.write(.json("true"), forKey: "App/checkoutOnly")
                let own = try await search.write(.json(#""search""#), forKey: "App/limit")
                // Same key, its own versions in each namespace.
                #expect(own.version == 1)
                #expect(await searchFeed.next() == own, "the search app heard of another namespace's write first")
                #expect(try await search.snapshot().map(\.key) == ["App/limit"])
                #expect(try search.cachedRecord(forKey: "App/checkoutOnly") == nil)
                #expect(try await search.fetchRecord(forKey: "App/checkoutOnly") == nil)
                #expect(Set(try await checkout.snapshot().map(\.key)) == ["App/limit", "App/checkoutOnly"])
                #expect(PostgresTestServer.text(try checkout.cachedRecord(forKey: "App/limit")) == "2")
                #expect(try await search.compareAndSet(.json("3"), forKey: "App/limit", expectedVersion: 2) == .conflict(current: own))
            }
        }
    }

    @Test func tombstonesAreCollectedAfterTheirRetention() async throws {
        let table = PostgresTestServer.uniqueTable("tombstones")
        try await PostgresTestServer.withStore(table: table, configure: {
            $0.reconcileInterval = .milliseconds(300)
            $0.tombstoneRetention = .seconds(1)
        }) { store, client in
            _ = try await store.write(.json("1"), forKey: "App/old")
            _ = try await store.write(nil, forKey: "App/old")
            _ = try await store.write(.json("1"), forKey: "App/kept")
            #expect(try store.cachedRecord(forKey: "App/old")?.value == nil)
            try await PostgresTestServer.eventually(timeout: .seconds(15), "the tombstone to be collected") {
                let rows = try await client.query("SELECT count(*) FROM \(unescaped: table) WHERE key = 'App/old'")
                var count = -1
                for try await value in rows.decode(Int.self) { count = value }
                return count == 0
            }
            try await PostgresTestServer.eventually(timeout: .seconds(10), "the cache to drop the tombstone") {
                try store.cachedRecord(forKey: "App/old") == nil
            }
            #expect(try store.cachedRecord(forKey: "App/kept")?.version == 1)
            // The key starts again at version 1.
            #expect(try await store.write(.json("2"), forKey: "App/old").version == 1)
        }
    }
}
}
#endif
