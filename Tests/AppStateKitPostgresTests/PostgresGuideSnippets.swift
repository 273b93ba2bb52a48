// The Swift snippet of Documentation/SyncState-PostgreSQL.md ("Running it"), compiled; run
// against the test server with a shutdown right after start.
#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import PostgresNIO
import ServiceLifecycle
import Testing

extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresGuideSnippets {
    /// The guide's snippet, verbatim (compiled, not run: it names a server at 127.0.0.1:5432).
    static func runningIt(logger: Logger) async throws {
        let client = PostgresClient(configuration: .init(
            host: "127.0.0.1", port: 5432, username: "app", password: nil, database: "app", tls: .disable
        ))
        let store = PostgresSyncStore(client: client)
        // The client first: a ServiceGroup stops services in reverse order, so the store stops first.
        let services = ServiceGroup(services: [client, store], gracefulShutdownSignals: [.sigterm], logger: logger)
        try await services.run()
    }

    @Test func theServiceGroupRunsTheStoreAndStopsIt() async throws {
        let configuration = PostgresTestServer.configuration
        let client = PostgresClient(configuration: configuration)
        let store = PostgresSyncStore(client: client, table: PostgresTestServer.uniqueTable("group"))
        let services = ServiceGroup(services: [client, store], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            try await PostgresTestServer.waitUntilConnected(store)
            _ = try await store.write(.json("1"), forKey: "k")
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
        #expect(store.status == .stopped)
        let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("2"), forKey: "k") }
        #expect(error?.kind == .shutDown)
        _ = Self.runningIt
    }
}
}
#endif
