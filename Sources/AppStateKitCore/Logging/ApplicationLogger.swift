import Foundation

/// Where AppStateKit's messages go: the `\.logger` dependency.
///
/// AppState 3.0's Linux logger, a struct of two closures (so it can't be subclassed: keep state
/// in an object of your own and pass its methods as the closures). AppState-style logger code
/// compiles unchanged:
///
/// ```swift
/// Application.promote(\.logger, with: ApplicationLogger(
///     debug: { print("debug: \($0)") },
///     error: { error, message in print("\(message ?? "error"): \(error)") }
/// ))
/// ```
///
/// Debug messages are only built and delivered while ``Application/logging(isEnabled:)`` is on;
/// errors (a corrupt file, a failed write) are always delivered. The default logger writes both
/// to standard error, one line each.
public struct ApplicationLogger: Sendable {
    private let debugSink: @Sendable (String) -> Void
    private let errorSink: @Sendable (any Error, String?) -> Void

    /// Creates a logger from a debug closure and an error closure, as AppState 3.0's does.
    ///
    /// - Parameters:
    ///   - debug: Receives debug messages (only called while logging is enabled).
    ///   - error: Receives every reported error and, when given, the message that accompanies it
    ///     (always called). A plain message reported with ``error(_:)-(String)`` arrives as an
    ///     error whose description is the message, with no accompanying message.
    public init(
        debug: @Sendable @escaping (String) -> Void = ApplicationLogger.writeToStandardError,
        error: @Sendable @escaping (any Error, String?) -> Void = ApplicationLogger.writeErrorToStandardError
    ) {
        self.debugSink = debug
        self.errorSink = error
    }

    /// Creates a logger whose error closure receives finished lines — `"<message> (<error>)"`,
    /// `"<error>"`, or a plain message as it was reported — e.g. to route them to swift-log:
    ///
    /// ```swift
    /// let log = Logger(label: "app")
    /// Application.promote(\.logger, with: ApplicationLogger(debug: { log.debug("\($0)") }, error: { log.error("\($0)") }))
    /// ```
    @_disfavoredOverload
    public init(
        debug: @Sendable @escaping (String) -> Void = ApplicationLogger.writeToStandardError,
        error: @Sendable @escaping (String) -> Void
    ) {
        self.debugSink = debug
        self.errorSink = { reported, message in error(ApplicationLogger.line(for: reported, message: message)) }
    }

    /// Logs a debug message while ``Application/logging(isEnabled:)`` is on.
    public func debug(_ message: String) {
        guard Diagnostics.isDebugEnabled.load(ordering: .relaxed) else { return }
        debugSink(message)
    }

    /// Logs a debug message, built only while ``Application/logging(isEnabled:)`` is on.
    ///
    /// ```swift
    /// Application.dependency(\.logger).debug { "cache holds \(expensiveSummary())" }
    /// ```
    public func debug(_ message: () -> String) {
        guard Diagnostics.isDebugEnabled.load(ordering: .relaxed) else { return }
        debugSink(message())
    }

    /// Reports `error`, with `message` when given, whether or not debug logging is enabled.
    ///
    /// ```swift
    /// Application.dependency(\.logger).error(error, "could not load the catalogue")
    /// ```
    public func error(_ error: any Error, _ message: String? = nil) {
        errorSink(error, message)
    }

    /// Reports a message, whether or not debug logging is enabled.
    public func error(_ message: String) {
        errorSink(Message(description: message), nil)
    }

    /// A plain message reported with ``error(_:)-(String)``, as an AppState-style error closure
    /// receives it: its description and `localizedDescription` are the message itself.
    struct Message: LocalizedError, CustomStringConvertible, Sendable {
        let description: String
        var errorDescription: String? { description }
    }

    /// The line an error and its optional message make: `"<message> (<error>)"`, or `"<error>"`.
    static func line(for error: any Error, message: String?) -> String {
        if let message { "\(message) (\(error))" } else { "\(error)" }
    }

    /// The default debug closure: one line on standard error.
    @usableFromInline static let writeToStandardError: @Sendable (String) -> Void = Diagnostics.writeToStandardError

    /// The default error closure: ``line(for:message:)`` on standard error.
    @usableFromInline static let writeErrorToStandardError: @Sendable (any Error, String?) -> Void = { error, message in
        writeToStandardError(line(for: error, message: message))
    }
}
