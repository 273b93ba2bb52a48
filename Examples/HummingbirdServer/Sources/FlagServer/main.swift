import AppStateKit
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

if let host = environment["APPSTATEKIT_POSTGRES_HOST"] {
    // Fleet mode: every instance pointed at the same database and table shares its flags.
    let client = PostgresClient(configuration: .init(
        host: host,
        port: environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init) ?? 5432,
        username: environment["APPSTATEKIT_POSTGRES_USER"] ?? "postgres",
        password: environment["APPSTATEKIT_POSTGRES_PASSWORD"],
        database: environment["APPSTATEKIT_POSTGRES_DATABASE"],
        tls: .disable
    ))
    let store = PostgresSyncStore(client: client, table: environment["FLAG_SYNC_TABLE"] ?? "flagserver_sync")
    AppStateKit.Application.promote(\.flagRepository, with: SharedFlagRepository(store: store))
    logger.info("sharing flags through PostgreSQL at \(host), table \(store.table)")
    let services = ServiceGroup(configuration: .init(
        services: [client, store, server],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    ))
    try await services.run()
} else {
    try await server.runService()
}
