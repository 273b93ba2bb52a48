import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// `GET /equivalent/flags/:name`: the same per-request work as `GET /api/flags/:name`, written
/// with plain Swift instead of AppStateKit, for the load test's fair comparison.
///
/// Per request, like the AppStateKit route: a metrics middleware counts the request twice (a
/// locked counter standing in for the `State` update, and the served atomic), a scope
/// middleware builds the same request id and binds the request's ``RequestInfo`` in a plain
/// `@TaskLocal` and sets the response header, a read-only middleware passes the request (it
/// reads its locked `Bool` only for a flag change), and the handler reads the repository, the flags
/// (a locked in-memory dictionary standing in for the FileState) and the default (a locked
/// `Bool` standing in for the StoredState).
enum PlainSwiftRoute {
    /// This route's request count, the counterpart of the `\.requestCount` State.
    static let requestCount = Mutex<Int>(0)
    /// The counterpart of the `\.servedCounter` dependency.
    static let served = ServedCounter()
    /// The counterpart of the `\.flagRepository` dependency.
    static let repository = PlainFlagStore()
    /// The counterpart of the `flags.readOnly` live setting.
    static let readOnly = Mutex<Bool>(false)
    /// The request of the calling task, the counterpart of the scoped `\.requestInfo` override.
    @TaskLocal static var requestInfo = RequestInfo(id: "none", tenant: "default")

    static func add(to router: Router<BasicRequestContext>) {
        let group = router.group("equivalent")
            .add(middleware: PlainMetricsMiddleware())
            .add(middleware: PlainRequestScopeMiddleware())
            .add(middleware: PlainReadOnlyFlagsMiddleware())
        group.get("flags/:name") { _, context -> Flag in
            let name = try context.parameters.require("name")
            let store = PlainSwiftRoute.repository
            if let flag = store.flag(named: name) { return flag }
            return Flag(name: name, enabled: store.defaultEnabled, updatedAt: Date(timeIntervalSince1970: 0))
        }
    }
}

/// Flags and the default value in memory, each behind a lock.
final class PlainFlagStore: Sendable {
    private let flags = Mutex<[String: Flag]>([:])
    private let defaultValue = Mutex<Bool>(false)

    func flag(named name: String) -> Flag? { flags.withLock { $0[name] } }
    var defaultEnabled: Bool { defaultValue.withLock { $0 } }
}

/// `MetricsMiddleware` without AppStateKit.
struct PlainMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        PlainSwiftRoute.requestCount.withLock { $0 += 1 }
        PlainSwiftRoute.served.increment()
        return try await next(request, context)
    }
}

/// `RequestScopeMiddleware` without AppStateKit: the same request id and header, the request's
/// info bound with a plain `@TaskLocal`.
/// `ReadOnlyFlagsMiddleware` in plain Swift: a flag change while a locked Bool says read-only is
/// refused; other requests pass without reading it.
struct PlainReadOnlyFlagsMiddleware<Context: RequestContext>: RouterMiddleware {
    static var isReadOnly: Bool { PlainSwiftRoute.readOnly.withLock { $0 } }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .put, request.uri.path.hasPrefix("/equivalent/flags/"), Self.isReadOnly {
            throw HTTPError(.serviceUnavailable, message: "flags are read-only")
        }
        return try await next(request, context)
    }
}

struct PlainRequestScopeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let info = RequestInfo(
            id: request.headers[.requestID] ?? RequestIDs.next(),
            tenant: request.headers[.tenant] ?? "default"
        )
        var response = try await PlainSwiftRoute.$requestInfo.withValue(info) {
            try await next(request, context)
        }
        response.headers[.requestID] = info.id
        return response
    }
}
