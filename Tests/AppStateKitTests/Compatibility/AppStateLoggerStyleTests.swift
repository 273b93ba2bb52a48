import Foundation
import Testing
import AppStateKitTesting
import AppStateKit

// Logger code written for AppState 3.0's Linux `ApplicationLogger` (a struct of two closures),
// compiled unchanged against AppStateKit.

private struct LoadFailed: LocalizedError, CustomStringConvertible {
    var description: String { "load failed" }
    var errorDescription: String? { description }
}

/// AppState-style extensions: a delegating `init` in an extension compiles only for a struct.
extension ApplicationLogger {
    fileprivate init(collectingInto collector: MessageCollector) {
        self.init(
            debug: { message in collector.append("debug: \(message)") },
            error: { error, message in
                collector.append("error: \(error.localizedDescription)\(message.map { " — \($0)" } ?? "")")
            }
        )
    }

    fileprivate static let silent = ApplicationLogger(debug: { _ in }, error: { _, _ in })
}

/// What used to be a logger subclass: an object of its own, passed to the closures.
private final class RecordingLogger: Sendable {
    let lines = MessageCollector()

    func debug(_ message: String) { lines.append("debug \(message)") }
    func error(_ error: any Error, _ message: String?) { lines.append("error \(error) \(message ?? "-")") }
}

@Suite("AppState-style logger", .isolatedApplication)
struct AppStateLoggerStyleTests {
    @Test("constructed with both closures, every method compiles and errors reach the error closure")
    func everyMethod() {
        let collector = MessageCollector()
        let logger = ApplicationLogger(
            debug: { message in collector.append("debug: \(message)") },
            error: { error, message in collector.append("error: \(error.localizedDescription) | \(message ?? "nil")") }
        )
        // Debug delivery depends on the process-wide `logging(isEnabled:)`; see the exit test in
        // LoggingTests for what is delivered. Here: these calls compile.
        _ = { logger.debug("plain"); logger.debug { "built" } }

        logger.error(LoadFailed())
        logger.error(LoadFailed(), "while loading")
        logger.error("a plain message")
        #expect(collector.messages == [
            "error: load failed | nil",
            "error: load failed | while loading",
            "error: a plain message | nil",
        ])
    }

    @Test("the defaults of both closures can be left out")
    func defaults() {
        _ = ApplicationLogger()
        _ = ApplicationLogger(debug: { _ in })
        _ = ApplicationLogger(error: { (_: any Error, _: String?) in })
        _ = ApplicationLogger.silent
    }

    @Test("promoted as \\.logger, it receives AppStateKit's error reports")
    func promotedAsLogger() {
        let collector = MessageCollector()
        Application.promote(\.logger, with: ApplicationLogger(collectingInto: collector))
        Application.logger.error(LoadFailed(), "promoted")
        Application.logger.error("plain")
        #expect(collector.messages == ["error: load failed — promoted", "error: plain"])
    }

    @Test("AppStateKit's line form still compiles: error closures that take a String")
    func lineForm() {
        let collector = MessageCollector()
        let logger = ApplicationLogger(debug: { collector.append("\($0)") }, error: { collector.append("\($0)") })
        logger.error(LoadFailed(), "while loading")
        logger.error(LoadFailed())
        logger.error("plain")
        _ = ApplicationLogger(error: { collector.append($0) })
        _ = ApplicationLogger(debug: { _ in }, error: { _ in })
        #expect(collector.messages == ["while loading (load failed)", "load failed", "plain"])
    }

    @Test("code that subclassed the logger passes its object's methods as the closures")
    func formerSubclass() {
        let recording = RecordingLogger()
        let override = Application.override(\.logger, with: ApplicationLogger(debug: recording.debug, error: recording.error))
        defer { override.cancel() }
        Application.logger.error(LoadFailed(), "routed")
        Application.logger.error("plain")
        #expect(recording.lines.messages == ["error load failed routed", "error plain -"])
    }

    @Test("a plain error message arrives as an error whose localizedDescription is the message")
    func plainMessageError() {
        let received = Locked<[String]>([])
        let logger = ApplicationLogger(debug: { _ in }, error: { error, message in
            received.withLock { $0 += [error.localizedDescription, "\(error)", message ?? "nil"] }
        })
        logger.error("disk full")
        #expect(received.withLock { $0 } == ["disk full", "disk full", "nil"])
    }
}
