import AppStateKit
import FlagService
import Foundation
import Logging

var logger = Logger(label: "flag-server")
logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
routeAppStateKitLogs(to: logger)
AppStateKit.Application.logging(isEnabled: logger.logLevel <= .debug)

let port = ProcessInfo.processInfo.environment["PORT"].flatMap(Int.init) ?? 8080
try await buildServer(port: port, logger: logger).runService()
