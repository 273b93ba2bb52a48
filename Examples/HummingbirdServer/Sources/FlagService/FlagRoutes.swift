import AppStateKit
import Foundation
import Hummingbird
import Logging

/// Builds the flag service's router:
///
/// - `GET /api/flags`, `GET /api/flags/:name`, `PUT /api/flags/:name` `{"enabled": true}`
/// - `DELETE /api/flags` — removes every shared flag (fleet mode: `SyncState.write`)
/// - `GET /api/maintenance`, `PUT /api/maintenance` `{"enabled": true}` — the fleet's
///   maintenance switch, a SyncState set with its setter
/// - `PUT /api/config/default` `{"enabled": true}` — what unknown flags read as
/// - `PUT /api/config/readOnly` `{"enabled": true}`, `DELETE /api/config/readOnly` — the live
///   setting `flags.readOnly`, shared by every instance (`LiveSettings.swift`)
/// - `GET /metrics` — request counts
/// - `POST /api/visits`, `POST /api/visits/blocking` — persist a StoredState per request
///   (`VisitRoutes.swift`)
/// - `GET /baseline/flags/:name` — the same response as `GET /api/flags/:name` for an unknown
///   flag, built without any AppStateKit code or middleware, for load-test comparison
/// - `GET /equivalent/flags/:name` — the same response after the same per-request work as
///   `GET /api/flags/:name` (request counting, request id and scope, repository and default
///   reads), written in plain Swift without AppStateKit (`PlainSwiftRoute`), for load-test
///   comparison
/// - `GET /plain` — a constant string
public func buildRouter() -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.get("plain") { _, _ in "ok" }
    router.get("baseline/flags/:name") { _, context -> Flag in
        Flag(name: try context.parameters.require("name"), enabled: false, updatedAt: Date(timeIntervalSince1970: 0))
    }
    PlainSwiftRoute.add(to: router)

    let api = router.group("api")
        .add(middleware: MetricsMiddleware())
        .add(middleware: RequestScopeMiddleware())
        .add(middleware: ReadOnlyFlagsMiddleware())
    api.get("flags") { _, _ -> [Flag] in
        try AppStateKit.Application.dependency(\.flagRepository).all()
    }
    api.get("flags/:name") { _, context -> Flag in
        let name = try context.parameters.require("name")
        if let flag = try AppStateKit.Application.dependency(\.flagRepository).flag(named: name) { return flag }
        return Flag(
            name: name,
            enabled: AppStateKit.Application.storedState(\.defaultFlagValue).value,
            updatedAt: Date(timeIntervalSince1970: 0)
        )
    }
    api.put("flags/:name") { request, context -> Flag in
        let name = try context.parameters.require("name")
        let update = try await request.decode(as: FlagUpdate.self, context: context)
        let flag = Flag(name: name, enabled: update.enabled, updatedAt: AppStateKit.Application.dependency(\.serverClock).now())
        try await AppStateKit.Application.dependency(\.flagRepository).save(flag)
        let info = AppStateKit.Application.dependency(\.requestInfo)
        AppStateKit.Application.dependency(\.logger).debug("request \(info.id) (tenant \(info.tenant)) set \(name) = \(update.enabled)")
        return flag
    }
    api.delete("flags") { _, _ -> HTTPResponse.Status in
        try await SharedFlagRepository().removeAll()
        return .noContent
    }
    api.get("maintenance") { _, _ -> FlagUpdate in
        FlagUpdate(enabled: AppStateKit.Application.syncState(\.maintenance).value)
    }
    api.put("maintenance") { request, context -> HTTPResponse.Status in
        let update = try await request.decode(as: FlagUpdate.self, context: context)
        // The setter: the value is this instance's at once, the write reaches the store (and
        // every instance) in the background.
        var maintenance = AppStateKit.Application.syncState(\.maintenance)
        maintenance.value = update.enabled
        return .accepted
    }
    api.put("config/default") { request, context -> HTTPResponse.Status in
        let update = try await request.decode(as: FlagUpdate.self, context: context)
        // The server form: the task suspends while one of AppStateKit's threads makes the write
        // durable; the blocking `write(_:)` would hold this event loop for the fsync.
        try await AppStateKit.Application.storedState(\.defaultFlagValue).writeDurably(update.enabled)
        return .noContent
    }
    addVisitRoutes(to: api)
    addLiveSettingRoutes(to: api)
    router.get("metrics") { _, _ -> Metrics in
        Metrics(
            requests: AppStateKit.Application.state(\.requestCount).value,
            served: AppStateKit.Application.dependency(\.servedCounter).value
        )
    }
    return router
}

/// Routes AppStateKit's messages to swift-log.
public func routeAppStateKitLogs(to logger: Logger) {
    AppStateKit.Application.promote(\.logger, with: ApplicationLogger(
        debug: { logger.debug("\($0)") },
        error: { logger.error("\($0)") }
    ))
}

/// The Hummingbird application serving `buildRouter()` on `port`.
public func buildServer(port: Int, logger: Logger) -> some ApplicationProtocol {
    Hummingbird.Application(
        router: buildRouter(),
        configuration: .init(address: .hostname("127.0.0.1", port: port)),
        logger: logger
    )
}
