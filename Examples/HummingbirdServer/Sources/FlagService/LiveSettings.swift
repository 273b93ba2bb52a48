import AppStateKit
import AppStateKitConfiguration
import Configuration
import Hummingbird

/// The server's live settings, read through swift-configuration: the environment first, then
/// the settings every instance shares (`main.swift` promotes a `LiveSettings` over the fleet's
/// PostgreSQL store, or over a key-value store in the data directory), then the default. An
/// admin flips a shared setting at run time with `PUT /api/config/readOnly`, and every instance
/// reads the new value without a restart.
public final class LiveSettings: Sendable {
    /// Reads the settings; each read answers from memory (no I/O).
    public let reader: ConfigReader
    /// Writes a shared setting; `nil` when there is no shared store (environment only).
    private let writer: (@Sendable (ConfigContent?, ConfigKey) async throws -> Void)?

    /// Settings from the environment only, which can't be changed at run time.
    public init(environment: EnvironmentVariablesProvider = EnvironmentVariablesProvider()) {
        reader = ConfigReader(providers: [environment])
        writer = nil
    }

    /// Settings from the environment, then from `shared` (a fleet's sync store).
    public init(environment: EnvironmentVariablesProvider = EnvironmentVariablesProvider(), shared: SyncStoreConfigProvider) {
        reader = ConfigReader(providers: [environment, shared])
        writer = { value, key in try await shared.setValue(value, forKey: key) }
    }

    /// Settings from the environment, then from `shared` (a key-value store on this machine).
    public init(environment: EnvironmentVariablesProvider = EnvironmentVariablesProvider(), shared: KeyValueStoreConfigProvider) {
        reader = ConfigReader(providers: [environment, shared])
        writer = { value, key in try shared.setValue(value, forKey: key) }
    }

    /// `flags.readOnly` (environment: `FLAGS_READ_ONLY`): while true, flags can't be changed
    /// (`PUT /api/flags/:name` answers 503).
    public var isReadOnly: Bool {
        reader.bool(forKey: "flags.readOnly", default: false)
    }

    /// Sets the shared `flags.readOnly` for every instance (`nil`: back to the default).
    ///
    /// - Throws: `HTTPError(.notImplemented)` without a shared store; the store's error.
    public func setReadOnly(_ readOnly: Bool?) async throws {
        guard let writer else {
            throw HTTPError(.notImplemented, message: "this server has no shared settings store")
        }
        try await writer(readOnly.map(ConfigContent.bool), "flags.readOnly")
    }
}

extension AppStateKit.Application {
    /// The live settings: environment only until `main.swift` promotes shared ones.
    public var liveSettings: Dependency<LiveSettings> { dependency(LiveSettings(), feature: "FlagServer", id: "liveSettings") }
}

/// Refuses flag changes (`PUT /api/flags/…`) with 503 while `flags.readOnly` is on; other
/// requests pass without reading the setting.
public struct ReadOnlyFlagsMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .put, request.uri.path.hasPrefix("/api/flags/"),
            AppStateKit.Application.dependency(\.liveSettings).isReadOnly {
            throw HTTPError(.serviceUnavailable, message: "flags are read-only (setting flags.readOnly)")
        }
        return try await next(request, context)
    }
}

/// `PUT /api/config/readOnly` `{"enabled": true}` sets `flags.readOnly` for every instance
/// sharing the settings store; `DELETE` returns it to the default.
func addLiveSettingRoutes(to api: RouterGroup<BasicRequestContext>) {
    api.put("config/readOnly") { request, context -> HTTPResponse.Status in
        let update = try await request.decode(as: FlagUpdate.self, context: context)
        try await AppStateKit.Application.dependency(\.liveSettings).setReadOnly(update.enabled)
        return .noContent
    }
    api.delete("config/readOnly") { _, _ -> HTTPResponse.Status in
        try await AppStateKit.Application.dependency(\.liveSettings).setReadOnly(nil)
        return .noContent
    }
}
