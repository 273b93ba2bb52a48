import AppStateKit
import AppStateKitPostgres
import FlagService
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

// One name for the default data and settings folders, however the binary is deployed
// (a symlink, a renamed copy); set before any StoredState or FileState is used.
AppStateKit.Application.storageName = "flag-server"

var logger = Logger(label: "flag-server")
let environment = ProcessInfo.processInfo.environment
logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
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
