// The snippets of Documentation/Concurrency.md ("What is atomic": mutating in place) and
// StateAndDependencies.md (a wrapper in a Sendable class; the AppState-style logger), verbatim,
// compiled and run. Keep them in step.
import AppStateKit
import AppStateKitTesting
import Synchronization
import Testing

/// The guide's `print` calls stay verbatim; in this file they print only as test diagnostics
/// (APPSTATEKIT_TEST_DIAGNOSTICS, see TestDiagnostics.swift), so a green run stays quiet.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    printedLines.withLock { $0.append(line) }
    diagnostic(line)
}

/// Every line the snippets printed, so a test can check where a message went.
private let printedLines = Mutex<[String]>([])

final class RequestCounter: Sendable {
    let counter = AppState(\.counter)          // instead of @AppState(\.counter) var counter

    func record() -> Int {
        counter.wrappedValue += 1               // atomic, like @AppState's `counter += 1`
        return counter.wrappedValue
    }

    var total: Int { Application.state(\.counter).value }
}

private enum LoadError: Error { case timeout }

@Suite("In-place mutation and logging guide snippets", .isolatedApplication, .reportsAsDiagnostics)
struct InPlaceMutationAndLoggingSnippets {
    @Test func mutatingInPlace() {
        var counter = Application.state(\.requestCount)
        counter.value += 1                      // atomic
        counter.value = counter.value + 1       // two steps: another write can land in between

        #expect(Application.state(\.requests).value == 2)
    }

    @Test("a wrapper held in a `let` of a Sendable class counts atomically")
    func wrapperInSendableClass() async {
        let model = RequestCounter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { _ = model.record() } }
            }
        }
        #expect(model.total == 8_000)
    }

    @Test func appStateStyleLogger() {
        let logger = ApplicationLogger(
            debug: { message in print("debug:", message) },
            error: { error, message in print("error:", message ?? "", error) }
        )
        logger.debug("cache warmed")               // or logger.debug { expensiveSummary() }
        logger.error(LoadError.timeout, "loading the catalogue")
        logger.error("the catalogue is empty")     // reaches `error` as an error that prints as the message
        Application.promote(\.logger, with: logger)

        Application.dependency(\.logger).error("reached through the dependency")
        #expect(printedLines.withLock { $0.contains("error:  reached through the dependency") })
    }
}
