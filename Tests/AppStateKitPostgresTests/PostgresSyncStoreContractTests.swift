#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import PostgresNIO
import Testing

/// The ``SyncStore`` contract on a real PostgreSQL server: versions, compare-and-set,
/// tombstones, snapshot, the change feed, limits, and rows the store cannot read.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresSyncStoreContractTests {
    @Test func passesTheSyncStoreConformanceSuite() async throws {
        let table = PostgresTestServer.uniqueTable("conformance")
        try await PostgresTestServer.withStore(table: table) { store, _ in
            try await SyncStoreConformance(store: store).run()
        }
    }

    @Test func writesIncreaseTheVersionAndAreReadBackFromCacheAndDatabase() async throws {
        try await PostgresTestServer.withStore(table: PostgresTestServer.uniqueTable("write")) { store, _ in
            #expect(try store.cachedRecord(forKey: "App.a") == nil)
            #expect(try await store.fetchRecord(forKey: "App.a") == nil)
            let first = try await store.write(.json(#"{"on":true}"#), forKey: "App.a")
            let second = try await store.write(.json(#"{"on":false}"#), forKey: "App.a")
            #expect(first.version == 1)
            #expect(second.version == 2)
            #expect(try store.cachedRecord(forKey: "App.a") == second)
            let fetched = try await store.fetchRecord(forKey: "App.a")
            #expect(fetched?.version == 2)
            #expect(PostgresTestServer.text(fetched) == #"{"on":false}"#)
        }
    }

    @Test func removalIsATombstoneWithANewVersion() async throws {
        try await PostgresTestServer.withStore(table: PostgresTestServer.uniqueTable("tomb")) { store, _ in
            _ = try await store.write(.json("1"), forKey: "k")
            let removed = try await store.write(nil, forKey: "k")
            #expect(removed == SyncRecord(key: "k", value: nil, version: 2))
            #expect(try await store.fetchRecord(forKey: "k") == removed)
            #expect(try await store.snapshot().contains(removed))
            // A tombstone's version is what a compare-and-set must name.
            let commit = try await store.compareAndSet(.json("3"), forKey: "k", expectedVersion: 2)
            #expect(commit == .committed(SyncRecord(key: "k", value: .json("3"), version: 3)))
        }
    }

    @Test func compareAndSetCommitsOnlyOnTheExpectedVersion() async throws {
        try await PostgresTestServer.withStore(table: PostgresTestServer.uniqueTable("cas")) { store, _ in
            let created = try await store.compareAndSet(.json("1"), forKey: "n", expectedVersion: 0)
            #expect(created == .committed(SyncRecord(key: "n", value: .json("1"), version: 1)))
            // Version 0 means "never written": a second create loses and sees the row.
            let again = try await store.compareAndSet(.json("9"), forKey: "n", expectedVersion: 0)
            #expect(again == .conflict(current: SyncRecord(key: "n", value: .json("1"), version: 1)))
            let stale = try await store.compareAndSet(.json("9"), forKey: "n", expectedVersion: 5)
            #expect(stale == .conflict(current: SyncRecord(key: "n", value: .json("1"), version: 1)))
            let next = try await store.compareAndSet(.json("2"), forKey: "n", expectedVersion: 1)
            #expect(next == .committed(SyncRecord(key: "n", value: .json("2"), version: 2)))
            let missing = try await store.compareAndSet(.json("1"), forKey: "absent", expectedVersion: 4)
            #expect(missing == .conflict(current: nil))
        }
    }

    @Test func snapshotHoldsEveryRow() async throws {
        try await PostgresTestServer.withStore(table: PostgresTestServer.uniqueTable("snap")) { store, _ in
            _ = try await store.write(.json("1"), forKey: "a")
            _ = try await store.write(.json("2"), forKey: "b")
            _ = try await store.write(nil, forKey: "c")
            let snapshot = try await store.snapshot().sorted { $0.key < $1.key }
            #expect(snapshot.map(\.key) == ["a", "b", "c"])
            #expect(snapshot.map(PostgresTestServer.text) == ["1", "2", nil])
        }
    }

    @Test func theFeedDeliversOwnCommitsAndAnotherInstancesCommits() async throws {
        let table = PostgresTestServer.uniqueTable("feed")
        try await PostgresTestServer.withStore(table: table, dropTable: false) { other, _ in
            try await PostgresTestServer.withStore(table: table) { store, _ in
                var feed = SyncChange.records(of: store.changeFeed()).makeAsyncIterator()
                _ = try await store.write(.json(#""mine""#), forKey: "x")
                #expect(await feed.next() == SyncRecord(key: "x", value: .json(#""mine""#), version: 1))
                _ = try await other.write(.json(#""theirs""#), forKey: "x")
                #expect(await feed.next() == SyncRecord(key: "x", value: .json(#""theirs""#), version: 2))
                #expect(try store.cachedRecord(forKey: "x")?.version == 2)
            }
        }
    }

    @Test func limitsAreEnforcedBeforeAnyIO() async throws {
        try await PostgresTestServer.withStore(table: PostgresTestServer.uniqueTable("limits")) { store, _ in
            let longKey = String(repeating: "k", count: SyncLimits.maxKeyBytes + 1)
            let keyError = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("1"), forKey: longKey) }
            #expect(keyError?.kind == .invalidKey)
            #expect(keyError?.description == "invalid key for sync key \"\(longKey)\": a key must have 1 to 255 UTF-8 bytes, this one has 256")
            let emptyKey = await #expect(throws: SyncStoreError.self) { _ = try await store.fetchRecord(forKey: "") }
            #expect(emptyKey?.kind == .invalidKey)
            // JSON strings of exactly the limit + 1 and the limit.
            let big = Data(("\"" + String(repeating: "x", count: SyncLimits.maxValueBytes - 1) + "\"").utf8)
            let valueError = await #expect(throws: SyncStoreError.self) {
                _ = try await store.compareAndSet(big, forKey: "big", expectedVersion: 0)
            }
            #expect(valueError?.kind == .valueTooLarge)
            #expect(valueError?.description == "value too large for sync key \"big\": the value's JSON has 1048577 bytes; the limit is 1048576")
            // The largest allowed value fits.
            let largest = Data(("\"" + String(repeating: "x", count: SyncLimits.maxValueBytes - 2) + "\"").utf8)
            let written = try await store.write(largest, forKey: "big")
            #expect(written.version == 1)
            let fetchedLargest = try await store.fetchRecord(forKey: "big")
            #expect(fetchedLargest?.value == largest)
        }
    }

    @Test func valuesThatAreNotJSONAreRejectedAndNothingIsWritten() async throws {
        try await PostgresTestServer.withStore(table: PostgresTestServer.uniqueTable("json")) { store, _ in
            let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("{not json"), forKey: "j") }
            #expect(error?.kind == .typeMismatch)
            let fetched = try await store.fetchRecord(forKey: "j")
            #expect(fetched == nil)
        }
    }

    @Test func aRowWithoutAVersionIsReportedNotFatal() async throws {
        let table = PostgresTestServer.uniqueTable("corrupt")
        // A table created by hand, without the NOT NULL the store's own table has.
        try await PostgresTestServer.asOwner("""
            CREATE TABLE \(table) (namespace text NOT NULL DEFAULT '', key text, value json, version bigint, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (namespace, key));
            """)
        try await PostgresTestServer.asOwner("INSERT INTO \(table) (key, value, version) VALUES ('bad', '1', NULL), ('good', '2', 7)")
        try await PostgresTestServer.withStore(table: table) { store, _ in
            // run() loaded the snapshot without the bad row and keeps working.
            let good = try store.cachedRecord(forKey: "good")
            let bad = try store.cachedRecord(forKey: "bad")
            #expect(PostgresTestServer.text(good) == "2")
            #expect(bad == nil)
            let error = await #expect(throws: SyncStoreError.self) { _ = try await store.fetchRecord(forKey: "bad") }
            #expect(error?.kind == .corruptRecord)
            #expect(error?.description.contains("its version is NULL") == true)
            let keys = try await store.snapshot().map(\.key)
            #expect(keys == ["good"])
            // An unconditional write repairs the row.
            let repaired = try await store.write(.json("3"), forKey: "bad")
            #expect(repaired.version == 1)
        }
    }

    /// The owner path: a role that may create tables in the schema gets the table from run(),
    /// exactly as migrationSQL(configuration:) prints it.
    @Test func theOwnerRolesStoreCreatesItsTable() async throws {
        let table = PostgresTestServer.uniqueTable("ddl")
        let configuration = PostgresTestServer.storeConfiguration(table: table)
        try await PostgresTestServer.withClient(PostgresTestServer.ownerConfiguration) { client in
            let store = PostgresSyncStore(client: client, configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await store.run() }
                defer { group.cancelAll() }
                try await store.waitUntilReady(timeout: .seconds(30))
                let rows = try await client.query("""
                    SELECT column_name::text, data_type::text FROM information_schema.columns
                    WHERE table_name = \(table) ORDER BY ordinal_position
                    """)
                var columns: [String] = []
                for try await (name, type) in rows.decode((String, String).self) { columns.append("\(name) \(type)") }
                #expect(columns == ["namespace text", "key text", "value json", "version bigint", "updated_at timestamp with time zone"])
                _ = try await store.write(.json("1"), forKey: "k")
            }
        }
        try await PostgresTestServer.dropTable(configuration)
    }
}
}
#endif
