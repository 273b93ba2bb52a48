import AppStateKit
import Foundation
import Synchronization
import HTTPTypes
import Hummingbird

/// Gives each request its own `\.requestInfo` (request id and tenant from the `X-Request-ID` and
/// `X-Tenant` headers) with a task-local scoped override: handlers and everything they call see
/// this request's values, concurrent requests never see each other's.
public struct RequestScopeMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let info = RequestInfo(
            id: request.headers[.requestID] ?? RequestIDs.next(),
            tenant: request.headers[.tenant] ?? "default"
        )
        var response = try await AppStateKit.Application.withOverrides {
            $0.override(\.requestInfo, with: info)
        } operation: {
            try await next(request, context)
        }
        response.headers[.requestID] = info.id
        return response
    }
}

/// Request ids for requests that don't bring one: cheap, unique within the process.
enum RequestIDs {
    private static let counter = Atomic<Int>(0)
    static func next() -> String { "req-\(counter.add(1, ordering: .relaxed).newValue)" }
}

/// Counts every request in AppStateKit state (atomically) and in a plain atomic.
public struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        AppStateKit.Application.update(\.requestCount) { $0 += 1 }
        AppStateKit.Application.dependency(\.servedCounter).increment()
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let requestID = Self("X-Request-ID")!
    static let tenant = Self("X-Tenant")!
}
