#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where AppStateKit's messages go: the `\.logger` dependency.
///
/// Debug messages are only built and delivered while ``Application/isLoggingEnabled`` is true;
/// errors (a corrupt file, a failed write) are always delivered. The default logger writes both
/// to standard error. Route them anywhere by promoting your own — for swift-log, one line:
///
/// ```swift
/// let log = Logger(label: "app")
/// Application.promote(\.logger, with: ApplicationLogger(debug: { log.debug("\($0)") }, error: { log.error("\($0)") }))
/// ```
///
/// The class is open so AppState-style subclasses that override ``debug(_:)-(String)`` and
/// ``error(_:)`` keep working.
open class ApplicationLogger: @unchecked Sendable {
    // Safe: the stored sinks are immutable `@Sendable` closures; subclasses must stay thread-safe.
    private let debugSink: @Sendable (String) -> Void
    private let errorSink: @Sendable (String) -> Void

    /// Creates a logger from two sinks.
    ///
    /// - Parameters:
    ///   - debug: Receives debug messages (only called while logging is enabled).
    ///   - error: Receives error messages (always called).
    public init(
        debug: @escaping @Sendable (String) -> Void = ApplicationLogger.writeToStandardError,
        error: @escaping @Sendable (String) -> Void = ApplicationLogger.writeToStandardError
    ) {
        self.debugSink = debug
        self.errorSink = error
    }

    /// Logs a debug message when ``Application/isLoggingEnabled`` is true.
    open func debug(_ message: String) {
        guard Application.isLoggingEnabled else { return }
        debugSink(message)
    }

    /// Logs a debug message built only when ``Application/isLoggingEnabled`` is true.
    ///
    /// ```swift
    /// Application.logger.debug { "cache holds \(expensiveSummary())" }
    /// ```
    open func debug(_ message: () -> String) {
        guard Application.isLoggingEnabled else { return }
        debugSink(message())
    }

    /// Reports an error, whether or not debug logging is enabled.
    open func error(_ message: String) {
        errorSink(message)
    }

    /// Reports `error`, prefixed with `message` when given.
    open func error(_ error: any Error, message: String? = nil) {
        if let message {
            errorSink("\(message) (\(error))")
        } else {
            errorSink("\(error)")
        }
    }

    /// The default sink: one line on standard error.
    public static let writeToStandardError: @Sendable (String) -> Void = { message in
        let line = message.hasSuffix("\n") ? message : message + "\n"
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }
}
