import AppStateKit
import AppStateKitConfiguration
import AppStateKitPostgres
import FlagService
import Foundation
import Logging
import NIOPosix
import PostgresNIO
import ServiceLifecycle

// One name for the default data and settings folders, however the binary is deployed
// (a symlink, a renamed copy); set before any StoredState or FileState is used.
AppStateKit.Application.storageName = "flag-server"

var logger = Logger(label: "flag-server")
let environment = ProcessInfo.processInfo.environment
logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info

// Where Swift concurrency runs the handlers. By default on the server's own NIO event loops,
// which Hummingbird serves from: a request then stays on the thread that read it, instead of
// crossing to Swift's thread pool and back (two thread switches, and a wake-up whenever the
// event loop had gone to sleep meanwhile, which cost more than the handler's own work under
// load; see Documentation/Performance.md). FLAG_SERVER_EXECUTOR=swift keeps Swift's own pool.
// Installed here, on the main thread, before any job has gone to the global executor.
switch environment["FLAG_SERVER_EXECUTOR"] ?? "event-loops" {
case "event-loops":
    guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
        logger.critical("could not run Swift concurrency on the NIO event loops; set FLAG_SERVER_EXECUTOR=swift")
        exit(1)
    }
case "swift":
    break
case let other:
    logger.critical("FLAG_SERVER_EXECUTOR is \"\(other)\"; use event-loops (the default) or swift")
    exit(1)
}

routeAppStateKitLogs(to: logger)
AppStateKit.Application.logging(isEnabled: logger.logLevel <= .debug)

let port = environment["PORT"].flatMap(Int.init) ?? 8080
let server = buildServer(port: port, logger: logger)

/// The fleet's store settings: FLAG_SYNC_TABLE (default `flagserver_sync`), FLAG_SYNC_SCHEMA,
/// FLAG_SYNC_NAMESPACE; the table is created by a migration (`flag-server print-migration-sql`),
/// never by the server, which connects as a role without DDL rights.
func storeConfiguration() -> PostgresSyncStore.Configuration {
    var configuration = PostgresSyncStore.Configuration()
    configuration.table = environment["FLAG_SYNC_TABLE"] ?? "flagserver_sync"
    configuration.schema = environment["FLAG_SYNC_SCHEMA"]
    configuration.namespace = environment["FLAG_SYNC_NAMESPACE"]
    configuration.createsTable = false
    configuration.lastKnownGoodFile = environment["FLAG_DATA_DIR"].map {
        URL(fileURLWithPath: $0).appendingPathComponent("flags-last-known-good.json")
    }
    return configuration
}

/// Runs the HTTP server once the store has values, so no request sees the initial flags.
struct ServerWhenReady: Service {
    let store: PostgresSyncStore
    let server: any Service

    func run() async throws {
        try await store.waitUntilReady(timeout: .seconds(30))
        try await server.run()
    }
}

if CommandLine.arguments.dropFirst().first == "print-migration-sql" {
    // For the migration role: the table the fleet shares.
    print(PostgresSyncStore.migrationSQL(configuration: storeConfiguration()))
} else if let host = environment["APPSTATEKIT_POSTGRES_HOST"] {
    // Fleet mode: every instance pointed at the same database and table shares its flags,
    // connecting as the application's role (APPSTATEKIT_POSTGRES_APP_USER / _APP_PASSWORD).
    // TLS is required, the server's certificate verified, for any host not on this machine
    // (APPSTATEKIT_POSTGRES_TLS=require|disable|auto overrides, _TLS_CA names a CA file).
    let databasePort = environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init) ?? 5432
    let username = environment["APPSTATEKIT_POSTGRES_APP_USER"] ?? environment["APPSTATEKIT_POSTGRES_USER"] ?? "postgres"
    // $CREDENTIALS_DIRECTORY/dbPassword, /run/secrets/dbPassword or DB_PASSWORD, else the variables (see README).
    let password = try databasePassword(legacyVariable: environment["APPSTATEKIT_POSTGRES_APP_PASSWORD"] ?? environment["APPSTATEKIT_POSTGRES_PASSWORD"])
    let database = environment["APPSTATEKIT_POSTGRES_DATABASE"]
    let tls: PostgresClient.Configuration.TLS
    switch try databaseTLSMode(host: host, setting: environment["APPSTATEKIT_POSTGRES_TLS"], certificate: environment["APPSTATEKIT_POSTGRES_TLS_CA"]) {
    case .required(let certificate):
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        if let certificate { configuration.trustRoots = .file(certificate) }
        tls = .require(configuration)
    case .disabled:
        if !isLocalDatabaseHost(host) {
            logger.warning("APPSTATEKIT_POSTGRES_TLS=disable: the password and every flag cross the network to \(host) in clear text; for local development only")
        }
        tls = .disable
    }
    let clientConfiguration = host.hasPrefix("/")
        // A Unix socket folder, as libpq takes it.
        ? PostgresClient.Configuration(unixSocketPath: host + "/.s.PGSQL.\(databasePort)", username: username, password: password, database: database)
        : PostgresClient.Configuration(host: host, port: databasePort, username: username, password: password, database: database, tls: tls)
    let client = PostgresClient(configuration: clientConfiguration)
    let store = PostgresSyncStore(client: client, configuration: storeConfiguration())
    AppStateKit.Application.promote(\.syncStore, with: store)
    AppStateKit.Application.promote(\.flagRepository, with: SharedFlagRepository())
    logger.info("sharing flags through PostgreSQL at \(host), table \(store.table)")
    // In this order: a ServiceGroup starts services in order and shuts them down in reverse, so
    // the server stops first, then the store (sending its pending writes), then the client.
    let services = ServiceGroup(configuration: .init(
        services: [client, store, ServerWhenReady(store: store, server: server)],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    ))
    try await withThrowingDiscardingTaskGroup { group in
        group.addTask { try await services.run() }
        // Live settings shared by the fleet, in the same table, once PostgreSQL has answered
        // (until then, and if it can't, the environment's and the defaults).
        do {
            let shared = try await SyncStoreConfigProvider(store: store)
            AppStateKit.Application.promote(\.liveSettings, with: LiveSettings(shared: shared))
            logger.info("live settings shared through PostgreSQL (\(shared.providerName))")
        } catch {
            logger.error("live settings from the environment only: \(error)")
        }
    }
} else {
    // Live settings shared by the processes using this data directory.
    do {
        let shared = try KeyValueStoreConfigProvider(store: FileKeyValueStore(path: ServerPaths.dataDirectory + "/settings.json"))
        AppStateKit.Application.promote(\.liveSettings, with: LiveSettings(shared: shared))
    } catch {
        logger.error("live settings from the environment only: \(error)")
    }
    try await server.runService()
}
