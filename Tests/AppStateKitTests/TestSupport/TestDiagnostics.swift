import AppStateKit
import Foundation
import Testing

// A green `swift test` prints the test runner's lines and nothing else. What the tests would
// otherwise print — the library's reports of the bad files and stores they make on purpose,
// crash-test counts, the values guide snippets print — goes through `diagnostic(_:)`, shown only
// when the run sets APPSTATEKIT_TEST_DIAGNOSTICS (to anything but "0"):
//
//     APPSTATEKIT_TEST_DIAGNOSTICS=1 swift test --filter PersistenceProcessTests

/// Whether this run shows test diagnostics (`APPSTATEKIT_TEST_DIAGNOSTICS`).
let showsTestDiagnostics: Bool = {
    guard let value = ProcessInfo.processInfo.environment["APPSTATEKIT_TEST_DIAGNOSTICS"] else { return false }
    return !value.isEmpty && value != "0"
}()

/// Prints `message` to standard output when the run shows test diagnostics.
func diagnostic(_ message: @autoclosure () -> String) {
    guard showsTestDiagnostics else { return }
    Swift.print(message())
}

/// A logger for tests that provoke AppStateKit's reports on purpose: its lines are diagnostics.
let diagnosticLogger = ApplicationLogger(
    debug: { diagnostic($0) },
    error: { (line: String) in diagnostic(line) }
)

/// Makes the application a test runs in report through ``diagnosticLogger``, so the reports
/// the test provokes on purpose stay out of a green run.
///
/// `.reportsAsDiagnostics` promotes the logger of the isolated application the test runs in (list
/// it after `.isolatedApplication`), so a test that promotes its own logger to check the reports
/// replaces it. `.reportsAsDiagnosticsInEveryApplication` overrides the logger for the test's task
/// instead, which also reaches the `Application()` instances a test makes; a test checks reports
/// there with `capturingLogs`, whose override is the inner one.
struct ReportsAsDiagnosticsTrait: TestTrait, SuiteTrait, TestScoping {
    let inEveryApplication: Bool

    var isRecursive: Bool { true }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        if inEveryApplication {
            try await Application.withOverrides({ $0.override(\.logger, with: diagnosticLogger) }) {
                try await function()
            }
            return
        }
        // Outside an isolated application the promotion would reach every other test.
        try #require(Application.currentContext.isIsolated, "list .reportsAsDiagnostics after .isolatedApplication")
        Application.promote(\.logger, with: diagnosticLogger)
        try await function()
    }
}

extension Trait where Self == ReportsAsDiagnosticsTrait {
    /// The isolated application's reports go to ``diagnosticLogger`` (see ``ReportsAsDiagnosticsTrait``).
    static var reportsAsDiagnostics: Self { ReportsAsDiagnosticsTrait(inEveryApplication: false) }

    /// Every application's reports in the test's task go to ``diagnosticLogger`` (see ``ReportsAsDiagnosticsTrait``).
    static var reportsAsDiagnosticsInEveryApplication: Self { ReportsAsDiagnosticsTrait(inEveryApplication: true) }
}
