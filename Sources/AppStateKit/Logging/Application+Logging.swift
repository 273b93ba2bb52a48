import Synchronization

/// Whether debug logging is on; errors are reported regardless.
private let loggingEnabled = Atomic<Bool>(false)

extension Application {
    /// Turns AppStateKit's debug messages on or off (off by default). Errors are always reported.
    ///
    /// Chainable: `Application.logging(isEnabled: true).load(dependency: \.database)`.
    @discardableResult
    public static func logging(isEnabled: Bool) -> Application.Type {
        loggingEnabled.store(isEnabled, ordering: .relaxed)
        return Application.self
    }

    /// Whether debug logging is enabled; see ``logging(isEnabled:)``.
    public static var isLoggingEnabled: Bool {
        loggingEnabled.load(ordering: .relaxed)
    }

    /// The logger in use: the current value of the `\.logger` dependency.
    public static var logger: ApplicationLogger {
        dependency(\.logger)
    }

    /// The logger AppStateKit reports through. Promote or override it to route messages.
    public var logger: Dependency<ApplicationLogger> {
        dependency(ApplicationLogger(), feature: "AppStateKit", id: "logger")
    }
}
