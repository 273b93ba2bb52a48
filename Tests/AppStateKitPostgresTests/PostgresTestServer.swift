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
/// APPSTATEKIT_POSTGRES_HOST, _PORT, _USER and _DATABASE. Without a reachable server every
/// test that needs one is skipped with ``skipReason``.
enum PostgresTestServer {
    static let environment = ProcessInfo.processInfo.environment

    static let host = environment["APPSTATEKIT_POSTGRES_HOST"]
    static let port = environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init)

    /// Whether the settings are present and something accepts TCP connections there.
    static let isReachable: Bool = {
        guard let host, let port else { return false }
        return canConnect(host: host, port: port)
    }()

    static let skipReason: Comment = "no reachable PostgreSQL server: start one with `eval \"$(.ci/postgres/start.sh)\"` (sets APPSTATEKIT_POSTGRES_HOST/PORT/USER/DATABASE), as .ci/steps/50-postgres.sh does"

    static var configuration: PostgresClient.Configuration { configuration(applicationName: "AppStateKitPostgresTests") }

    /// The settings, with `application_name` set so a test can find its own connections.
    static func configuration(applicationName: String) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host ?? "127.0.0.1", port: port ?? 5432,
            username: environment["APPSTATEKIT_POSTGRES_USER"] ?? "appstatekit", password: nil,
            database: environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .disable
        )
        configuration.options.connectTimeout = .seconds(2)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    /// The cluster folder, for restart.sh.
    static var clusterDirectory: String? { environment["APPSTATEKIT_POSTGRES_DIR"] }

    /// A table name no other test uses.
    static func uniqueTable(_ purpose: String) -> String {
        "t_\(purpose)_\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Runs `body` with a running client and a store on `table` (listening and caught up),
    /// then stops both and drops the table when `dropTable` is set.
    static func withStore<Result: Sendable>(
        table: String,
        reconnectDelay: Duration = .milliseconds(200),
        operationTimeout: Duration = .seconds(5),
        dropTable: Bool = true,
        applicationName: String = "AppStateKitPostgresTests",
        _ body: @Sendable (PostgresSyncStore, PostgresClient) async throws -> Result
    ) async throws -> Result {
        let client = PostgresClient(configuration: configuration(applicationName: applicationName))
        let store = PostgresSyncStore(client: client, table: table, operationTimeout: operationTimeout, reconnectDelay: reconnectDelay, heartbeatInterval: .seconds(1))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await waitUntilConnected(store)
            let result = try await body(store, client)
            if dropTable {
                try await client.query("DROP TABLE IF EXISTS \(unescaped: table)")
            }
            return result
        }
    }

    /// Waits (at most `timeout`) until the store is connected.
    static func waitUntilConnected(_ store: PostgresSyncStore, timeout: Duration = .seconds(30)) async throws {
        try await eventually(timeout: timeout, "the store on \(store.table) to connect (status: \(store.status))") {
            if case .connected = store.status { return true }
            return false
        }
    }

    /// Polls `condition` every 20 ms until it holds; fails the test after `timeout`.
    static func eventually(timeout: Duration = .seconds(30), _ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
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
