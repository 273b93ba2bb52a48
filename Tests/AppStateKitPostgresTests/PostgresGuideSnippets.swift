// The Swift snippet of Documentation/SyncState-PostgreSQL.md ("Running it"), compiled; run
// against the test server with a shutdown right after start.
#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import PostgresNIO
import ServiceLifecycle
import Testing

extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresGuideSnippets {
    /// The guide's snippets, verbatim (compiled, not run: they name a server at db.internal).
    static func runningIt() async throws {
        let logger = Logger(label: "flag-service")
        let password = ProcessInfo.processInfo.environment["DATABASE_PASSWORD"]
        let client = PostgresClient(configuration: .init(
            host: "db.internal", port: 5432, username: "flags_app", password: password, database: "app", tls: .require(.makeClientConfiguration())
        ))
        var configuration = PostgresSyncStore.Configuration()
        configuration.createsTable = false            // the migration role created it
        configuration.namespace = "flag-service"      // this app's keys only
        configuration.lastKnownGoodFile = URL(fileURLWithPath: "/var/lib/flag-service/flags.json")
        let store = PostgresSyncStore(client: client, configuration: configuration, logger: logger)
        Application.promote(\.syncStore, with: store)
        // The client first: a ServiceGroup shuts services down in reverse order, so the store stops
        // (and drains its pending writes) while the client still runs.
        let services = ServiceGroup(services: [client, store], gracefulShutdownSignals: [.sigterm], logger: logger)
        try await services.run()

        try await store.waitUntilReady(timeout: .seconds(15))
    }

    @Test func theServiceGroupRunsTheStoreAndStopsIt() async throws {
        let table = PostgresTestServer.uniqueTable("group")
        try await PostgresTestServer.createTable(PostgresTestServer.storeConfiguration(table: table))
        let client = PostgresClient(configuration: PostgresTestServer.configuration)
        let store = PostgresSyncStore(client: client, table: table)
        let services = ServiceGroup(services: [client, store], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            try await store.waitUntilReady(timeout: .seconds(30))
            _ = try await store.write(.json("1"), forKey: "k")
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
        #expect(store.currentStatus == .stopped)
        let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("2"), forKey: "k") }
        #expect(error?.kind == .shutDown)
        _ = Self.runningIt
        try await PostgresTestServer.dropTable(PostgresTestServer.storeConfiguration(table: table))
    }
}
}
#endif
