import Synchronization

/// Whether `Diagnostics` sends reports to `\.logger` yet (see `installDiagnostics()`).
private let diagnosticsInstalled = Atomic<Bool>(false)

extension Application {
    /// Turns AppStateKit's debug messages on or off (off by default). Errors are always reported.
    ///
    /// While it is on, AppStateKit tells the `\.logger` what it does: each entry it creates
    /// (kind, value type and key), each global override installed or cancelled, each
    /// promotion of a dependency or of the application, and what the persistence layer does
    /// on its own (a store reloaded, corrupt data moved aside). While it is off, those messages
    /// cost one relaxed atomic load each and are never built.
    ///
    /// Chainable: `Application.logging(isEnabled: true).load(dependency: \.database)`.
    @discardableResult
    public static func logging(isEnabled: Bool) -> Application.Type {
        installDiagnostics()
        Diagnostics.isDebugEnabled.store(isEnabled, ordering: .relaxed)
        return Application.self
    }

    /// Whether debug logging is on (package-internal, as in AppState); see ``logging(isEnabled:)``.
    package static var isLoggingEnabled: Bool {
        Diagnostics.isDebugEnabled.load(ordering: .relaxed)
    }

    /// The logger in use: the current value of the `\.logger` dependency (package-internal;
    /// users write `Application.dependency(\.logger)`).
    package static var logger: ApplicationLogger {
        dependency(\.logger)
    }

    /// The logger AppStateKit reports through. Promote or override it to route messages.
    public var logger: Dependency<ApplicationLogger> {
        Application.installDiagnostics()
        return dependency(ApplicationLogger(), feature: "AppStateKit", id: "logger")
    }

    /// Routes `Diagnostics` (the reports of code that knows no logger) to `\.logger`,
    /// once. Runs whenever the logger is named, so until then the default logger is in use, whose
    /// output `Diagnostics` reproduces.
    @inline(__always)
    static func installDiagnostics() {
        guard !diagnosticsInstalled.load(ordering: .relaxed) else { return }
        Diagnostics.install {
            Diagnostics.Sink(
                debug: { Application.logger.debug($0) },
                error: { Application.logger.error($0) }
            )
        }
        diagnosticsInstalled.store(true, ordering: .relaxed)
    }

    /// Sends one of AppStateKit's own debug messages to the current application's logger;
    /// `message` is only built while logging is enabled.
    static func logDebug(_ message: @autoclosure () -> String) {
        guard Diagnostics.isDebugEnabled.load(ordering: .relaxed) else { return }
        logger.debug("AppStateKit: \(message())")
    }

    /// Reports that `entry` was created, unless it is the logger's own entry. Called by the
    /// functions that make entries (no lock held, before the registry stores it), so the logger
    /// must not read that entry: that would stop the process as a dependency cycle.
    @usableFromInline
    static func announceCreation(of entry: any RegistryEntry) {
        guard Diagnostics.isDebugEnabled.load(ordering: .relaxed),
            !(entry is DependencyEntry<ApplicationLogger>)
        else { return }
        logDebug("created \(entry.kindName)<\(entry.valueTypeName)> \(entry.loggedName)")
    }

    /// `entry`, after ``announceCreation(of:)``: for creation closures that are one expression.
    @usableFromInline
    package static func announcingCreation<Entry: RegistryEntry>(_ entry: Entry) -> Entry {
        announceCreation(of: entry)
        return entry
    }
}
