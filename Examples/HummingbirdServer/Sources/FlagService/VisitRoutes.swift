import AppStateKit
import Foundation
import Hummingbird

/// The last request to `POST /api/visits`: which request it was and when.
public struct Visit: ResponseCodable, Equatable, Sendable {
    public var requestID: String
    public var at: Date

    public init(requestID: String, at: Date) {
        self.requestID = requestID
        self.at = at
    }
}

extension AppStateKit.Application {
    /// The last visit, persisted on every `POST /api/visits`.
    public var lastVisit: StoredState<Visit?> { storedState(feature: "FlagServer", id: "lastVisit") }
}

/// Adds the routes that persist a StoredState on every request:
///
/// - `POST /api/visits` — stores the request as the last visit with `writeDurably(_:)` and
///   answers once it is on disk. The request's task is suspended meanwhile, and the `fsync`
///   runs on AppStateKit's own threads, so the event loop serves its other connections.
/// - `POST /api/visits/blocking` — the same with the blocking `write(_:)`, which holds the
///   event loop (and every connection on it) until the disk answers; kept for the load test's
///   comparison (`Scripts/write-latency.sh`).
func addVisitRoutes(to api: RouterGroup<BasicRequestContext>) {
    api.post("visits") { _, _ -> Visit in
        let visit = currentVisit()
        try await AppStateKit.Application.storedState(\.lastVisit).writeDurably(visit)
        return visit
    }
    api.post("visits/blocking") { _, _ -> Visit in
        let visit = currentVisit()
        try AppStateKit.Application.storedState(\.lastVisit).write(visit)
        return visit
    }
}

/// The visit the current request makes.
private func currentVisit() -> Visit {
    Visit(
        requestID: AppStateKit.Application.dependency(\.requestInfo).id,
        at: AppStateKit.Application.dependency(\.serverClock).now()
    )
}
