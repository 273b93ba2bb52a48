#if PostgreSQL
import AppStateKit
import AppStateKitPostgres
import AppStateKitTesting
import Logging
import PostgresNIO
import Synchronization
import Testing

/// The store's one logger route: what it reports goes to the `Logger` its initialiser received,
/// and nothing to AppStateKit's `\.logger`. No server needed: a client that is never run makes
/// the first round fail.
@Suite("PostgreSQL store logger", .isolatedApplication)
struct PostgresLoggerTests {
    @Test("a store given a logger reports a failed round there, and nothing through AppStateKit's \\.logger")
    func reportsGoToTheGivenLogger() async throws {
        let appReports = Mutex<[String]>([])
        Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { (line: String) in appReports.withLock { $0.append(line) } }))
        let lines = CapturedLines()
        var configuration = PostgresSyncStore.Configuration()
        configuration.table = "logger_test"
        configuration.operationTimeout = .milliseconds(100)
        configuration.reconnectDelay = .seconds(3600)
        let store = PostgresSyncStore(
            client: PostgresStopTests.unconnectedClient(),
            configuration: configuration,
            logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        )
        let run = Task { try await store.run() }
        try await PostgresTestServer.eventually("the failed round's report") {
            lines.all.contains { $0.hasPrefix("error AppStateKit: PostgresSyncStore lost PostgreSQL (table logger_test)") }
        }
        run.cancel()
        _ = await run.result
        #expect(appReports.withLock { $0 }.isEmpty, "\(appReports.withLock { $0 })")
    }

    @Test("the default logger forwards errors to AppStateKit's \\.logger of the application current where they are logged")
    func defaultLoggerForwards() {
        let appReports = Mutex<[String]>([])
        Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { (line: String) in appReports.withLock { $0.append(line) } }))
        PostgresSyncStore.defaultLogger.error("AppStateKit: a report")
        PostgresSyncStore.defaultLogger.info("not an error")
        #expect(appReports.withLock { $0 } == ["AppStateKit: a report"])
    }
}

/// What a ``CapturingLogHandler`` received, as `"<level> <message>"` lines.
final class CapturedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

struct CapturingLogHandler: LogHandler {
    let lines: CapturedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append("\(event.level) \(event.message)")
    }
}
#endif
