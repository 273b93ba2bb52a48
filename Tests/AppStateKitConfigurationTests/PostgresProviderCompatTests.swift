#if Configuration && PostgreSQL
import AppStateKit
import AppStateKitConfiguration
import AppStateKitPostgres
import Configuration
import ConfigurationTesting
import Foundation
import PostgresNIO
import Testing

/// swift-configuration's own `ProviderCompatTest` over ``SyncStoreConfigProvider`` on a
/// `PostgresSyncStore`, against the server `.ci/postgres/start.sh` starts (.ci/steps/52-configuration.sh
/// starts one). As in production, the owner role creates the table with the store's migration
/// SQL and the stores connect as the least-privileged app role (`createsTable` off). Without a
/// reachable server the suite is skipped, saying how to start one.
@Suite(
    "ProviderCompatTest over PostgreSQL", .serialized, .isolatedApplication,
    .enabled(if: ConfigPostgresServer.isReachable, ConfigPostgresServer.skipReason)
)
struct PostgresProviderCompatTests {
    @Test("SyncStoreConfigProvider over PostgresSyncStore (app role), values written by another instance's store")
    func syncProviderOverPostgresStore() async throws {
        var configuration = PostgresSyncStore.Configuration()
        configuration.table = "t_config_compat_\(UInt32.random(in: 0...UInt32.max))"
        configuration.createsTable = false
        configuration.operationTimeout = .seconds(10)
        try await ConfigPostgresServer.asOwner(PostgresSyncStore.migrationSQL(configuration: configuration))
        do {
            // Another store stands for another instance of the fleet writing the data; the
            // provider under test reads it from the table when it is created.
            try await ConfigPostgresServer.withStore(configuration) { writerStore in
                let writer = try await SyncStoreConfigProvider(store: writerStore)
                for (key, value) in CompatData.values { try await writer.setValue(value, forKey: ConfigKey(key)) }
            }
            try await ConfigPostgresServer.withStore(configuration) { store in
                let provider = try await SyncStoreConfigProvider(store: store)
                try await ProviderCompatTest(provider: provider).runTest()
            }
        } catch {
            try await ConfigPostgresServer.asOwner("DROP TABLE IF EXISTS \"\(configuration.table)\"")
            throw error
        }
        try await ConfigPostgresServer.asOwner("DROP TABLE IF EXISTS \"\(configuration.table)\"")
    }
}

/// The server `.ci/postgres/start.sh` started, named by its APPSTATEKIT_POSTGRES_* variables:
/// stores connect as the app role (APPSTATEKIT_POSTGRES_APP_USER/_APP_PASSWORD), tables are
/// created and dropped by the owner role (APPSTATEKIT_POSTGRES_OWNER).
enum ConfigPostgresServer {
    static let environment = ProcessInfo.processInfo.environment
    static let host = environment["APPSTATEKIT_POSTGRES_HOST"]
    static let port = environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init)
    static let appUser = environment["APPSTATEKIT_POSTGRES_APP_USER"]
    static let owner = environment["APPSTATEKIT_POSTGRES_OWNER"]

    /// Whether the settings are present and something accepts TCP connections there.
    static let isReachable: Bool = {
        guard let host, let port, appUser != nil, owner != nil else { return false }
        return canConnect(host: host, port: port)
    }()

    static let skipReason: Comment = "no reachable PostgreSQL server with the app and owner roles: start one with `eval \"$(.ci/postgres/start.sh)\"` (sets APPSTATEKIT_POSTGRES_HOST/PORT/DATABASE, _APP_USER/_APP_PASSWORD and _OWNER), as .ci/steps/52-configuration.sh does"

    static func clientConfiguration(username: String?, password: String?) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host ?? "127.0.0.1", port: port ?? 5432, username: username ?? "", password: password,
            database: environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .disable
        )
        configuration.options.connectTimeout = .seconds(2)
        configuration.options.additionalStartupParameters = [("application_name", "AppStateKitConfigurationTests")]
        return configuration
    }

    /// Runs `sql` as the owner role.
    static func asOwner(_ sql: String) async throws {
        let client = PostgresClient(configuration: clientConfiguration(username: owner, password: nil))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }

    /// Runs `body` with a store on `configuration`'s table, connected as the app role and
    /// ready, then stops the store and its client in that order.
    static func withStore(_ configuration: PostgresSyncStore.Configuration, _ body: @Sendable (PostgresSyncStore) async throws -> Void) async throws {
        let client = PostgresClient(configuration: clientConfiguration(username: appUser, password: environment["APPSTATEKIT_POSTGRES_APP_PASSWORD"]))
        let store = PostgresSyncStore(client: client, configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let storeRun = Task { try await store.run() }
            do {
                try await store.waitUntilReady(timeout: .seconds(30))
                try await body(store)
                storeRun.cancel()
                try await storeRun.value
            } catch {
                storeRun.cancel()
                _ = await storeRun.result
                throw error
            }
        }
    }

    /// Whether a TCP connection to `host:port` opens.
    private static func canConnect(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else { return false }
        defer { freeaddrinfo(result) }
        let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
    }
}
#endif
