import AppStateKit
import Foundation
import Synchronization

/// Where the server gets the time; tests use a fixed one.
public protocol ServerClock: Sendable {
    func now() -> Date
}

public struct SystemServerClock: ServerClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// What one request is about, set per request by `RequestScopeMiddleware`.
public struct RequestInfo: Sendable, Equatable {
    public var id: String
    public var tenant: String

    public init(id: String, tenant: String) {
        self.id = id
        self.tenant = tenant
    }
}

/// Counts served requests with a plain atomic, independently of AppStateKit, so the load test
/// can check that the State counter lost no update.
public final class ServedCounter: Sendable {
    private let count = Atomic<Int>(0)
    public init() {}
    public func increment() { count.add(1, ordering: .relaxed) }
    public var value: Int { count.load(ordering: .relaxed) }
}

/// The data directory: `FLAG_DATA_DIR`, else the FileState default. Read once: the
/// `flagsFile` declaration is evaluated on every request, and building
/// `ProcessInfo.environment` is far from free.
public enum ServerPaths {
    public static let dataDirectory: String =
        ProcessInfo.processInfo.environment["FLAG_DATA_DIR"] ?? FileManager.defaultFileStatePath
}

extension AppStateKit.Application {
    // Dependencies
    public var flagRepository: Dependency<any FlagRepository> { dependency(FileFlagRepository(), feature: "FlagServer", id: "repository") }
    public var serverClock: Dependency<any ServerClock> { dependency(SystemServerClock(), feature: "FlagServer", id: "clock") }
    public var servedCounter: Dependency<ServedCounter> { dependency(ServedCounter(), feature: "FlagServer", id: "served") }
    /// Overridden for each request by `RequestScopeMiddleware`.
    public var requestInfo: Dependency<RequestInfo> { dependency(RequestInfo(id: "none", tenant: "default"), feature: "FlagServer", id: "request") }

    // State
    public var requestCount: State<Int> { state(initial: 0, feature: "FlagServer", id: "requests") }

    // Configuration
    /// What an unknown flag reads as (`PUT /api/config/default`).
    public var defaultFlagValue: StoredState<Bool> { storedState(initial: false, feature: "FlagServer", id: "defaultEnabled") }
    /// The flags themselves.
    public var flagsFile: FileState<[String: Flag]> {
        fileState(initial: [:], path: ServerPaths.dataDirectory, filename: "flags.json", isBase64Encoded: false)
    }
}
