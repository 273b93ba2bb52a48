#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import PostgresNIO
import Testing

/// The production setup: the owner role migrates, the application role holds only USAGE on the
/// schema and SELECT, INSERT, UPDATE, DELETE on the table. The store issues no DDL when the
/// table exists, quotes and qualifies its table's name, and says what to do when a privilege or
/// the table is missing.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresLeastPrivilegeTests {
    @Test func theAppRoleRunsEveryOperationOnATableTheOwnerCreated() async throws {
        let table = PostgresTestServer.uniqueTable("grants")
        // withStore: the owner creates the table, the store connects as the app role, which may
        // not create anything in the schema; run() must find the table without DDL.
        try await PostgresTestServer.withStore(table: table) { store, _ in
            #expect(store.currentStatus.isLive)
            _ = try await store.write(.json("1"), forKey: "a")
            #expect(try await store.compareAndSet(.json("2"), forKey: "a", expectedVersion: 1) == .committed(SyncRecord(key: "a", value: .json("2"), version: 2)))
            #expect(try await store.updateExclusively(forKey: "a") { _ in .json("3") } == SyncRecord(key: "a", value: .json("3"), version: 3))
            _ = try await store.write(nil, forKey: "a")
            #expect(try await store.fetchRecord(forKey: "a") == SyncRecord(key: "a", value: nil, version: 4))
            #expect(try await store.snapshot().map(\.version) == [4])
        }
    }

    @Test func withCreatesTableOffTheStoreNeverIssuesDDL() async throws {
        let table = PostgresTestServer.uniqueTable("no_ddl")
        var settings = PostgresTestServer.storeConfiguration(table: table)
        settings.createsTable = false
        let configuration = settings
        // The owner could create the table; with createsTable off the store must not.
        try await PostgresTestServer.withClient(PostgresTestServer.ownerConfiguration) { client in
            let store = PostgresSyncStore(client: client, configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await store.run() }
                defer { group.cancelAll() }
                try await PostgresTestServer.eventually("the store to report the missing table") {
                    if case .unavailable(_, let reason) = store.currentStatus { return reason.contains("does not exist") }
                    return false
                }
                guard case .unavailable(_, let reason) = store.currentStatus else { return }
                #expect(reason == "table \(table) does not exist and Configuration.createsTable is off: create it as its owner with the SQL PostgresSyncStore.migrationSQL(configuration:) prints")
                let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("1"), forKey: "k") }
                #expect(error?.kind == .unavailable)
                let rows = try await client.query("SELECT to_regclass(\(table))::text")
                for try await name in rows.decode(String?.self) { #expect(name == nil, "the store created its table") }
            }
        }
    }

    @Test func aTableNamedOrderInASchemaWorksAndIsSchemaQualified() async throws {
        let schema = try #require(PostgresTestServer.schema)
        try await PostgresTestServer.withStore(table: "order", configure: { $0.schema = schema }) { store, client in
            _ = try await store.write(.json("42"), forKey: "limit")
            // The row is in the schema's table, not in a table of the search path.
            let rows = try await client.query("SELECT value::text FROM \(unescaped: "\"\(schema)\".\"order\"") WHERE key = 'limit'")
            var values: [String] = []
            for try await value in rows.decode(String.self) { values.append(value) }
            #expect(values == ["42"])
            let publicOrder = try await client.query("SELECT to_regclass('public.\"order\"')::text")
            for try await name in publicOrder.decode(String?.self) { #expect(name == nil) }
        }
    }

    @Test func migrationAndGrantSQLAreTheDocumentedStatements() {
        var configuration = PostgresSyncStore.Configuration()
        configuration.schema = "flags"
        configuration.table = "order"
        #expect(PostgresSyncStore.migrationSQL(configuration: configuration) == """
            CREATE TABLE IF NOT EXISTS "flags"."order" (
                namespace text NOT NULL DEFAULT '',
                key text NOT NULL,
                value json,
                version bigint NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (namespace, key)
            );
            """)
        #expect(PostgresSyncStore.grantSQL(configuration: configuration, role: "app") == """
            GRANT USAGE ON SCHEMA "flags" TO "app";
            GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "flags"."order" TO "app";
            """)
    }

    @Test func aMissingPrivilegeIsADefiniteFailureThatNamesTheGrant() async throws {
        let table = PostgresTestServer.uniqueTable("revoked")
        let role = try #require(PostgresTestServer.appUser)
        try await PostgresTestServer.withStore(table: table) { store, _ in
            try await PostgresTestServer.asOwner("REVOKE INSERT, UPDATE ON \(table) FROM \(role)")
            let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("1"), forKey: "k") }
            #expect(error?.kind == .refused)
            #expect(error?.detail.contains("permission denied for table \(table)") == true, "\(String(describing: error))")
            #expect(error?.detail.contains("nothing was written") == true)
            #expect(error?.detail.contains("GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE \"\(table)\"") == true)
            #expect(error?.detail.contains("outcome is unknown") == false)
        }
    }

    @Test func aDroppedTableIsADefiniteFailureThatSaysHowToCreateIt() async throws {
        let table = PostgresTestServer.uniqueTable("dropped")
        try await PostgresTestServer.withStore(table: table, dropTable: false) { store, _ in
            try await PostgresTestServer.asOwner("DROP TABLE \(table)")
            let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("1"), forKey: "k") }
            #expect(error?.kind == .refused)
            #expect(error?.detail.contains("table \(table) does not exist") == true, "\(String(describing: error))")
            #expect(error?.detail.contains("PostgresSyncStore.migrationSQL(configuration:)") == true)
        }
    }

    /// A server whose default isolation is REPEATABLE READ: the store pins READ COMMITTED, so
    /// racing exclusive updates and compare-and-sets all commit, none fails with 40001.
    @Test func writesArePinnedToReadCommittedWhateverTheServersDefault() async throws {
        let table = PostgresTestServer.uniqueTable("isolation")
        try await PostgresTestServer.createTable(PostgresTestServer.storeConfiguration(table: table))
        var clientConfiguration = PostgresTestServer.configuration
        clientConfiguration.options.additionalStartupParameters = [("default_transaction_isolation", "repeatable read")]
        try await PostgresTestServer.withClient(clientConfiguration) { client in
            let rows = try await client.query("SELECT current_setting('default_transaction_isolation')")
            for try await level in rows.decode(String.self) { #expect(level == "repeatable read") }
            let store = PostgresSyncStore(client: client, configuration: PostgresTestServer.storeConfiguration(table: table))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await store.run() }
                try await store.waitUntilReady(timeout: .seconds(30))
                try await withThrowingTaskGroup(of: Void.self) { writers in
                    for _ in 0..<4 {
                        writers.addTask {
                            for _ in 0..<25 {
                                _ = try await store.updateExclusively(forKey: "n", PostgresExclusiveUpdateTests.increment)
                            }
                        }
                    }
                    try await writers.waitForAll()
                }
                #expect(PostgresTestServer.text(try await store.fetchRecord(forKey: "n")) == "100")
                group.cancelAll()
            }
        }
        try await PostgresTestServer.dropTable(PostgresTestServer.storeConfiguration(table: table))
    }

    /// A row lock held elsewhere: PostgreSQL's lock_timeout (the operation timeout) ends the
    /// wait with a definite failure, and the store's connection is not left waiting.
    @Test func aLockHeldElsewhereEndsWithTheServersLockTimeoutNotAnUnknownOutcome() async throws {
        let table = PostgresTestServer.uniqueTable("locked")
        try await PostgresTestServer.withStore(table: table, operationTimeout: .seconds(1), applicationName: "locked_\(table)") { store, _ in
            _ = try await store.write(.json("1"), forKey: "k")
            try await PostgresTestServer.withClient(PostgresTestServer.ownerConfiguration) { owner in
                try await owner.withConnection { connection in
                    let logger = Logger(label: "test")
                    try await connection.query("BEGIN", logger: logger)
                    try await connection.query("SELECT * FROM \(unescaped: table) WHERE key = 'k' FOR UPDATE", logger: logger)
                    let error = await #expect(throws: SyncStoreError.self) {
                        _ = try await store.updateExclusively(forKey: "k") { _ in .json("2") }
                    }
                    #expect(error?.kind == .unavailable)
                    // Both server-side limits are the operation timeout; whichever PostgreSQL applies first.
                    #expect(error?.detail.contains("lock_timeout") == true || error?.detail.contains("statement_timeout") == true, "\(String(describing: error))")
                    #expect(error?.detail.contains("nothing was written") == true)
                    let waiting = try await connection.query("""
                        SELECT count(*) FROM pg_stat_activity WHERE application_name = \("locked_\(table)") AND wait_event_type = 'Lock'
                        """, logger: logger)
                    for try await count in waiting.decode(Int.self) { #expect(count == 0) }
                    try await connection.query("ROLLBACK", logger: logger)
                }
            }
            #expect(PostgresTestServer.text(try await store.fetchRecord(forKey: "k")) == "1")
        }
    }
}
}
#endif
