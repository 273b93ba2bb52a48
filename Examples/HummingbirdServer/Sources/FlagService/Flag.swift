import Foundation
import Hummingbird

/// A feature flag.
public struct Flag: ResponseCodable, Equatable, Sendable {
    public var name: String
    public var enabled: Bool
    public var updatedAt: Date

    public init(name: String, enabled: Bool, updatedAt: Date) {
        self.name = name
        self.enabled = enabled
        self.updatedAt = updatedAt
    }
}

/// The body of `PUT /api/flags/:name` and `PUT /api/maintenance`, and of `GET /api/maintenance`.
public struct FlagUpdate: ResponseCodable, Sendable {
    public var enabled: Bool
}

/// The body of `GET /metrics`.
public struct Metrics: ResponseCodable, Equatable, Sendable {
    /// Requests counted in AppStateKit state with `Application.update`.
    public var requests: Int
    /// The same requests counted with a plain atomic, to check no update was lost.
    public var served: Int

    public init(requests: Int, served: Int) {
        self.requests = requests
        self.served = served
    }
}
