import AppStateKit
import AppStateKitPostgres
import ArgumentParser
import Foundation
import PostgresNIO

/// Where the PostgreSQL SyncState table is and how to reach it: the settings and variables the
/// server uses (Documentation/SyncState-PostgreSQL.md, Examples/HummingbirdServer), shared by
/// `sync --postgres` and `doctor --postgres`.
struct PostgresConnectionOptions: ParsableArguments {
    @Option(help: "PostgreSQL host, or a Unix socket folder (a path). Default: $APPSTATEKIT_POSTGRES_HOST.")
    var host: String?

    @Option(help: "PostgreSQL port. Default: $APPSTATEKIT_POSTGRES_PORT, else 5432.")
    var port: Int?

    @Option(help: "The role to log in as. Default: $APPSTATEKIT_POSTGRES_USER. The password comes from $APPSTATEKIT_POSTGRES_PASSWORD or SecureState's sources (key appstatekitPostgresPassword), never from an argument.")
    var user: String?

    @Option(help: "The database. Default: $APPSTATEKIT_POSTGRES_DATABASE, else the role's name.")
    var database: String?

    @Option(help: "The SyncState table, as PostgresSyncStore.Configuration.table.")
    var table: String = "appstatekit_sync"

    @Option(help: "The table's schema, as PostgresSyncStore.Configuration.schema (default: the role's search_path).")
    var schema: String?

    @Option(help: "The app's namespace in a shared table, as PostgresSyncStore.Configuration.namespace.")
    var namespace: String?

    @Option(name: .customLong("postgres-timeout"), help: ArgumentHelp("Seconds to wait for the database to answer.", valueName: "seconds"))
    var timeout: Int = 10

    /// The store's configuration for these options: never creates the table (the tool is not
    /// the migration role).
    ///
    /// - Throws: ``SyncToolError`` naming the option whose value the store would refuse.
    func storeConfiguration() throws -> PostgresSyncStore.Configuration {
        try Self.checkName(table, option: "--table", maxLength: 50)
        if let schema { try Self.checkName(schema, option: "--schema", maxLength: 50) }
        if let namespace {
            let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
            guard (1...40).contains(namespace.count), namespace.allSatisfy(allowed.contains) else {
                throw SyncToolError("--namespace \(SyncText.shown(namespace)) is not a namespace: 1 to 40 characters of A-Z, a-z, 0-9, _, - and .")
            }
        }
        guard (1...3600).contains(timeout) else {
            throw SyncToolError("--postgres-timeout \(timeout) is out of range: 1 to 3600 seconds")
        }
        var configuration = PostgresSyncStore.Configuration()
        configuration.table = table
        configuration.schema = schema
        configuration.namespace = namespace
        configuration.createsTable = false
        configuration.operationTimeout = .seconds(timeout)
        configuration.reconnectDelay = .milliseconds(250)
        return configuration
    }

    /// The table's name as it appears in SQL and messages: `"schema"."table"` or `"table"`.
    var qualifiedTable: String {
        (schema.map { "\"\($0)\"." } ?? "") + "\"\(table)\""
    }

    private static func checkName(_ name: String, option: String, maxLength: Int) throws {
        let first = Set("abcdefghijklmnopqrstuvwxyz_")
        let rest = first.union("0123456789")
        guard (1...maxLength).contains(name.count), let head = name.first, first.contains(head), name.allSatisfy(rest.contains) else {
            throw SyncToolError("\(option) \(SyncText.shown(name)) is not a table or schema name: 1 to \(maxLength) characters of a-z, 0-9 and _, not starting with a digit")
        }
    }

    /// The resolved connection: options first, then the environment.
    func endpoint(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgresEndpoint {
        guard let host = host ?? environment["APPSTATEKIT_POSTGRES_HOST"], !host.isEmpty else {
            throw SyncToolError("no PostgreSQL host: pass --host or set APPSTATEKIT_POSTGRES_HOST")
        }
        let port: Int
        if let given = self.port {
            port = given
        } else if let variable = environment["APPSTATEKIT_POSTGRES_PORT"] {
            guard let parsed = Int(variable) else {
                throw SyncToolError("APPSTATEKIT_POSTGRES_PORT is \(SyncText.shown(variable)), not a port number")
            }
            port = parsed
        } else {
            port = 5432
        }
        guard (1...65535).contains(port) else { throw SyncToolError("port \(port) is out of range: 1 to 65535") }
        guard let user = user ?? environment["APPSTATEKIT_POSTGRES_USER"], !user.isEmpty else {
            throw SyncToolError("no PostgreSQL role: pass --user or set APPSTATEKIT_POSTGRES_USER")
        }
        let database = database ?? environment["APPSTATEKIT_POSTGRES_DATABASE"]
        let tls = try PostgresTLSMode(host: host, setting: environment["APPSTATEKIT_POSTGRES_TLS"], certificate: environment["APPSTATEKIT_POSTGRES_TLS_CA"])
        return PostgresEndpoint(host: host, port: port, user: user, database: database, tls: tls, environment: environment)
    }
}

/// How the tool protects its connection: TLS with the server's certificate verified, except to
/// this machine (loopback or a Unix socket), as the example server does.
enum PostgresTLSMode: Equatable, Sendable {
    /// TLS required, verified against the system's trust store or the PEM file `trusting`.
    case required(trusting: String?)
    /// No TLS: only to this machine.
    case disabled

    /// The mode for `host` and `APPSTATEKIT_POSTGRES_TLS` (`auto`, `require` or `disable`) with
    /// `APPSTATEKIT_POSTGRES_TLS_CA`. Unlike the server, the tool refuses `disable` for a host on
    /// another machine: an operator's password and every value would cross the network in
    /// clear text.
    init(host: String, setting: String?, certificate: String?) throws {
        switch setting ?? "auto" {
        case "require":
            self = .required(trusting: certificate)
        case "disable":
            guard PostgresEndpoint.isLocal(host) else {
                throw SyncToolError("APPSTATEKIT_POSTGRES_TLS=disable is refused for \(SyncText.shown(host)), which is not on this machine: the password and every value would cross the network in clear text. Unset it (TLS is then required and verified; APPSTATEKIT_POSTGRES_TLS_CA names a CA file)")
            }
            self = .disabled
        case "auto", "":
            self = PostgresEndpoint.isLocal(host) ? .disabled : .required(trusting: certificate)
        case let other:
            throw SyncToolError("APPSTATEKIT_POSTGRES_TLS is \(SyncText.shown(String(other.prefix(40)))); use auto (the default: required unless the host is loopback or a Unix socket), require or disable")
        }
    }
}

/// A resolved PostgreSQL connection (no password: that is read when connecting).
struct PostgresEndpoint: Sendable {
    var host: String
    var port: Int
    var user: String
    var database: String?
    var tls: PostgresTLSMode
    /// Where the password variable is read from (the process's environment but in tests).
    var environment: [String: String]

    /// Whether `host` is this machine: a Unix socket folder, `localhost`, `127.0.0.0/8` or `::1`.
    static func isLocal(_ host: String) -> Bool {
        if host.hasPrefix("/") || host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
    }

    /// How messages name the server: `user@host:port/database`.
    var description: String {
        "\(user)@\(host):\(port)\(database.map { "/\($0)" } ?? "")"
    }

    /// Whether the connection is encrypted.
    var usesTLS: Bool {
        if case .required = tls { return true }
        return false
    }

    /// The client's configuration, with the password from `APPSTATEKIT_POSTGRES_PASSWORD` or
    /// SecureState's sources.
    func clientConfiguration(applicationName: String) throws -> PostgresClient.Configuration {
        let password = try PostgresPassword.read(environment: environment)
        var configuration: PostgresClient.Configuration
        if host.hasPrefix("/") {
            configuration = PostgresClient.Configuration(unixSocketPath: host + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            let clientTLS: PostgresClient.Configuration.TLS
            switch tls {
            case .required(let certificate):
                var settings = TLSConfiguration.makeClientConfiguration()
                settings.certificateVerification = .fullVerification
                if let certificate { settings.trustRoots = .file(certificate) }
                clientTLS = .require(settings)
            case .disabled:
                clientTLS = .disable
            }
            configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: clientTLS)
        }
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }
}

extension Application {
    /// The password the tool logs in to PostgreSQL with: `$CREDENTIALS_DIRECTORY/appstatekitPostgresPassword`,
    /// `/run/secrets/appstatekitPostgresPassword`, the variable `APPSTATEKIT_POSTGRES_PASSWORD`,
    /// then the tool's own secret store (`appstatekit secrets set appstatekitPostgresPassword`).
    var appstatekitPostgresPassword: SecureState { secureState(id: "appstatekitPostgresPassword") }
}

/// Reads the PostgreSQL password; never prints it.
enum PostgresPassword {
    /// The password, or `nil` for a passwordless (trust or peer) login.
    ///
    /// - Throws: ``SyncToolError`` naming the source that can't be read (not the secret).
    static func read(environment: [String: String]) throws -> String? {
        if let variable = environment["APPSTATEKIT_POSTGRES_PASSWORD"], !variable.isEmpty {
            return variable
        }
        do {
            return try Application.secureState(\.appstatekitPostgresPassword).read()
        } catch {
            throw SyncToolError("the PostgreSQL password can't be read: \(error)")
        }
    }
}

/// Runs `body` with a running client and a running store on the table, then stops both: the
/// store first, while the client still runs (as in a ServiceGroup), so stopping reports nothing.
///
/// - Throws: ``SyncToolError`` when the store can't load the table (the message names the
///   server and table and why: at its first failed attempt, not after a timeout, since an
///   operator is waiting), or `body`'s error.
func withPostgresStore<Result: Sendable>(
    _ options: PostgresConnectionOptions,
    applicationName: String = "appstatekit",
    _ body: @escaping @Sendable (PostgresSyncStore, PostgresClient) async throws -> Result
) async throws -> Result {
    let endpoint = try options.endpoint()
    let configuration = try options.storeConfiguration()
    try await PostgresProbe.check(endpoint, timeout: options.timeout)
    let client = PostgresClient(configuration: try endpoint.clientConfiguration(applicationName: applicationName))
    let store = PostgresSyncStore(client: client, configuration: configuration)
    let place = "PostgreSQL SyncState table \(options.qualifiedTable) at \(endpoint.description)"
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        let storeRun = Task { try await store.run() }
        do {
            try await waitUntilLoaded(store, timeout: .seconds(options.timeout), place: place)
            let result = try await body(store, client)
            storeRun.cancel()
            _ = await storeRun.result
            return result
        } catch {
            storeRun.cancel()
            _ = await storeRun.result
            throw error
        }
    }
}

/// Returns once `store` has loaded the table; throws at its first failed attempt, or after
/// `timeout` (a server that accepts the connection and never answers).
private func waitUntilLoaded(_ store: PostgresSyncStore, timeout: Duration, place: String) async throws {
    let statuses = store.statusUpdates()
    let outcome: String?
    do {
        outcome = try await OperationLimit.run(seconds: Int(timeout.components.seconds)) { () -> String? in
            for await status in statuses {
                switch status {
                case .live, .stale: return nil
                case .starting: continue
                case .unavailable(_, let reason): return reason
                case .stopped: return "the store stopped"
                }
            }
            return "the store stopped"
        }
    } catch is OperationLimit.TimedOut {
        throw SyncToolError("\(place) didn't load within \(timeout) (status: \(store.currentStatus)); raise --postgres-timeout for a slow server")
    }
    if let reason = outcome {
        throw SyncToolError("\(place) can't be used: \(reason)")
    }
}

/// One plain connection, made before a store starts, so a refused connection or login is
/// reported at once and with the server's reason (a pool retries quietly instead).
enum PostgresProbe {
    /// Connects and disconnects, or throws ``SyncToolError`` saying why not.
    static func check(_ endpoint: PostgresEndpoint, timeout: Int) async throws {
        let client = try endpoint.clientConfiguration(applicationName: "appstatekit")
        var configuration: PostgresConnection.Configuration
        if endpoint.host.hasPrefix("/") {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: endpoint.host + "/.s.PGSQL.\(endpoint.port)", username: client.username, password: client.password, database: client.database
            )
        } else {
            let tls: PostgresConnection.Configuration.TLS
            switch endpoint.tls {
            case .required(let certificate):
                var settings = TLSConfiguration.makeClientConfiguration()
                settings.certificateVerification = .fullVerification
                if let certificate { settings.trustRoots = .file(certificate) }
                do {
                    tls = .require(try NIOSSLContext(configuration: settings))
                } catch {
                    throw SyncToolError("TLS to PostgreSQL at \(endpoint.description) can't be set up (APPSTATEKIT_POSTGRES_TLS_CA: \(certificate ?? "the system's trust store")): \(error)")
                }
            case .disabled:
                tls = .disable
            }
            configuration = PostgresConnection.Configuration(
                host: endpoint.host, port: endpoint.port, username: client.username, password: client.password, database: client.database, tls: tls
            )
        }
        configuration.options.connectTimeout = .seconds(Int64(min(timeout, 30)))
        let ready = configuration
        do {
            try await OperationLimit.run(seconds: timeout) {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: ready, id: 1, logger: DoctorPostgres.doctorLogger
                )
                try await connection.close()
            }
        } catch {
            throw SyncToolError("can't log in to PostgreSQL at \(endpoint.description): \(reason(error))")
        }
    }

    /// What went wrong, from a postgres-nio error: the server's message when it sent one (it
    /// names no password), else the underlying network or TLS error.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return "the server says: \(message)\(state)"
            }
            if let underlying = error.underlying { return String(describing: underlying).prefix(300).description }
            return "\(error.code)"
        }
        return String(describing: error).prefix(300).description
    }
}
