import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if PostgreSQL
import AppStateKit
import AppStateKitPostgres
import PostgresNIO
import Testing

/// Every test that needs the server, one at a time: some restart the server or kill
/// connections, and the multi-process ones load the machine.
@Suite(.serialized, .isolatedApplication, .enabled(if: PostgresTestServer.isReachable, PostgresTestServer.skipReason))
struct PostgresServerTests {}

/// The PostgreSQL server the tests use: the one `.ci/postgres/start.sh` started, named by
/// APPSTATEKIT_POSTGRES_HOST, _PORT and _DATABASE. Stores connect as the application role
/// (APPSTATEKIT_POSTGRES_APP_USER with _APP_PASSWORD: no DDL, only USAGE on the schemas and
/// SELECT, INSERT, UPDATE, DELETE on the owner's tables), tables are created and dropped by the
/// owner role (APPSTATEKIT_POSTGRES_OWNER), and PgBouncer in transaction mode listens on
/// APPSTATEKIT_PGBOUNCER_PORT. Without a reachable server and those roles every test that needs
/// one is skipped with ``skipReason``.
enum PostgresTestServer {
    static let environment = ProcessInfo.processInfo.environment

    static let host = environment["APPSTATEKIT_POSTGRES_HOST"]
    static let port = environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init)
    static let appUser = environment["APPSTATEKIT_POSTGRES_APP_USER"]
    static let appPassword = environment["APPSTATEKIT_POSTGRES_APP_PASSWORD"]
    static let owner = environment["APPSTATEKIT_POSTGRES_OWNER"]
    /// A schema the owner owns and the app role may use.
    static let schema = environment["APPSTATEKIT_POSTGRES_SCHEMA"]
    static let bouncerPort = environment["APPSTATEKIT_PGBOUNCER_PORT"].flatMap(Int.init)

    /// Whether the settings are present and something accepts TCP connections there.
    static let isReachable: Bool = {
        guard let host, let port, appUser != nil, owner != nil else { return false }
        return canConnect(host: host, port: port)
    }()

    static let skipReason: Comment = "no reachable PostgreSQL server with the app and owner roles: start one with `eval \"$(.ci/postgres/start.sh)\"` (sets APPSTATEKIT_POSTGRES_HOST/PORT/DATABASE, _APP_USER/_APP_PASSWORD, _OWNER, _SCHEMA and APPSTATEKIT_PGBOUNCER_PORT), as .ci/steps/50-postgres.sh does"

    /// How a client reaches the server.
    enum Route {
        /// Straight to PostgreSQL.
        case direct
        /// Through PgBouncer in transaction pooling mode.
        case pgBouncer
    }

    static var configuration: PostgresClient.Configuration { configuration(applicationName: "AppStateKitPostgresTests") }

    /// The application role's settings, with `application_name` set so a test can find its own
    /// connections.
    static func configuration(applicationName: String, route: Route = .direct) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host ?? "127.0.0.1", port: route == .pgBouncer ? (bouncerPort ?? 6432) : (port ?? 5432),
            username: appUser ?? "appstatekit_app", password: appPassword,
            database: environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .disable
        )
        configuration.options.connectTimeout = .seconds(2)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    /// The owner role's settings (DDL, TRUNCATE, ending other connections).
    static var ownerConfiguration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host ?? "127.0.0.1", port: port ?? 5432,
            username: owner ?? "appstatekit_owner", password: nil,
            database: environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .disable
        )
        configuration.options.connectTimeout = .seconds(2)
        configuration.options.additionalStartupParameters = [("application_name", "AppStateKitPostgresTests-owner")]
        return configuration
    }

    /// The superuser's settings, for what only it may do (ending any role's connections).
    static var adminConfiguration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host ?? "127.0.0.1", port: port ?? 5432,
            username: environment["APPSTATEKIT_POSTGRES_USER"] ?? "appstatekit", password: nil,
            database: environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .disable
        )
        configuration.options.connectTimeout = .seconds(2)
        return configuration
    }

    /// The cluster folder, for restart.sh.
    static var clusterDirectory: String? { environment["APPSTATEKIT_POSTGRES_DIR"] }

    /// Runs `body` with a running client for `configuration`.
    @discardableResult
    static func withClient<Result: Sendable>(
        _ configuration: PostgresClient.Configuration,
        _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// Runs `sql` as the owner role.
    static func asOwner(_ sql: String) async throws {
        try await withClient(ownerConfiguration) { client in
            try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }

    /// Creates `configuration`'s table as the owner, with the store's own migration SQL.
    static func createTable(_ configuration: PostgresSyncStore.Configuration) async throws {
        try await asOwner(PostgresSyncStore.migrationSQL(configuration: configuration))
    }

    /// Drops `configuration`'s table as the owner.
    static func dropTable(_ configuration: PostgresSyncStore.Configuration) async throws {
        try await asOwner("DROP TABLE IF EXISTS \((configuration.schema.map { "\"\($0)\"." } ?? "") + "\"\(configuration.table)\"")")
    }

    /// A table name no other test uses.
    static func uniqueTable(_ purpose: String) -> String {
        "t_\(purpose)_\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The test configuration of a store on `table`: short delays, so failures show quickly.
    static func storeConfiguration(table: String, reconnectDelay: Duration = .milliseconds(200), operationTimeout: Duration = .seconds(5)) -> PostgresSyncStore.Configuration {
        var configuration = PostgresSyncStore.Configuration()
        configuration.table = table
        configuration.reconnectDelay = reconnectDelay
        configuration.operationTimeout = operationTimeout
        configuration.heartbeatInterval = .seconds(1)
        return configuration
    }

    /// Runs `body` with a running client (the app role) and a store on `table` (loaded and
    /// caught up), then stops both. The owner creates the table first unless it exists, and
    /// drops it afterwards when `dropTable` is set.
    static func withStore<Result: Sendable>(
        table: String,
        reconnectDelay: Duration = .milliseconds(200),
        operationTimeout: Duration = .seconds(5),
        dropTable: Bool = true,
        applicationName: String = "AppStateKitPostgresTests",
        route: Route = .direct,
        configure: (inout PostgresSyncStore.Configuration) -> Void = { _ in },
        _ body: @Sendable (PostgresSyncStore, PostgresClient) async throws -> Result
    ) async throws -> Result {
        var storeConfiguration = storeConfiguration(table: table, reconnectDelay: reconnectDelay, operationTimeout: operationTimeout)
        configure(&storeConfiguration)
        try await createTable(storeConfiguration)
        let client = PostgresClient(configuration: configuration(applicationName: applicationName, route: route))
        let store = PostgresSyncStore(client: client, configuration: storeConfiguration)
        let result = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            // The store stops first, while the client still runs, as in a ServiceGroup.
            let storeRun = Task { try await store.run() }
            defer { group.cancelAll() }
            do {
                try await store.waitUntilReady(timeout: .seconds(30))
                let result = try await body(store, client)
                storeRun.cancel()
                try await storeRun.value
                return result
            } catch {
                storeRun.cancel()
                _ = await storeRun.result
                throw error
            }
        }
        if dropTable {
            try await Self.dropTable(storeConfiguration)
        }
        return result
    }

    /// Waits (at most `timeout`) until the store is connected.
    static func waitUntilConnected(_ store: PostgresSyncStore, timeout: Duration = .seconds(30)) async throws {
        try await eventually(timeout: timeout, "the store on \(store.table) to connect (status: \(store.currentStatus))") {
            if case .live = store.currentStatus { return true }
            return false
        }
    }

    /// Polls `condition` every `interval` (20 ms) until it holds; fails the test after `timeout`.
    static func eventually(timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(20), _ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: interval)
        }
        throw WaitTimeout(description: "timed out waiting for \(what)")
    }

    struct WaitTimeout: Error, CustomStringConvertible { let description: String }

    /// Restarts the server through .ci/postgres/restart.sh, down for `down` seconds.
    static func restartServer(down: Int) async throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".ci/postgres/restart.sh")
        // posix_spawn + waitpid on a dispatch thread: Foundation's Process didn't report this
        // script's exit (its server process keeps running after the script ends).
        let arguments = ["/bin/bash", script.path, clusterDirectory ?? "", String(down)]
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            DispatchQueue.global().async {
                var pid = pid_t()
                let argv = arguments.map { strdup($0) } + [nil]
                defer { argv.forEach { free($0) } }
                let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, argv, environ)
                guard spawned == 0 else {
                    continuation.resume(throwing: WaitTimeout(description: "posix_spawn of restart.sh failed: \(spawned)"))
                    return
                }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        guard status == 0 else {
            throw WaitTimeout(description: "restart.sh exited with \(status)")
        }
    }

    /// The JSON text of `record`'s value, for comparisons.
    static func text(_ record: SyncRecord?) -> String? {
        record?.value.map { String(decoding: $0, as: UTF8.self) }
    }
}

extension Data {
    /// The UTF-8 bytes of `json`.
    static func json(_ json: String) -> Data { Data(json.utf8) }
}
#endif

/// Whether a TCP connection to `host:port` succeeds within a second.
func canConnect(host: String, port: Int) -> Bool {
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
