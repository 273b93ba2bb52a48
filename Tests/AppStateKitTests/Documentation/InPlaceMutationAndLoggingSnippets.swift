// The snippets this change added to Documentation/Concurrency.md and StateAndDependencies.md
// (in-place mutation, wrappers in Sendable classes, the AppState-style logger), compiled and run.
import Foundation
import Testing
import AppStateKitTesting
import AppStateKit

private extension Application {
    var docRequestCount: State<Int> { state(initial: 0) }
}

/// StateAndDependencies.md, "Property wrappers": a wrapper held in a `let` of a Sendable class.
private final class DocRequestCounter: Sendable {
    let counter = AppState(\.docRequestCount)

    func record() -> Int {
        counter.wrappedValue += 1
        return counter.wrappedValue
    }

    var total: Int { Application.state(\.docRequestCount).value }
}

private enum DocLoadError: Error { case timeout }

@Suite("Documentation snippets: in-place mutation and logging", .isolatedApplication)
struct InPlaceMutationAndLoggingSnippets {
    @Test("Concurrency.md: mutating in place vs. reading then writing")
    func inPlaceSnippet() {
        var counter = Application.state(\.docRequestCount)
        counter.value += 1
        counter.value = counter.value + 1
        #expect(Application.state(\.docRequestCount).value == 2)
    }

    @Test("StateAndDependencies.md: a wrapper in a `let` of a Sendable class counts atomically")
    func sendableClassSnippet() async {
        let model = DocRequestCounter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { _ = model.record() } }
            }
        }
        #expect(model.total == 8_000)
    }

    @Test("StateAndDependencies.md: the AppState-style logger")
    func loggerSnippet() {
        let logger = ApplicationLogger(
            debug: { message in print("debug:", message) },
            error: { error, message in print("error:", message ?? "", error) }
        )
        logger.debug("cache warmed")
        logger.debug { "expensive summary" }
        logger.error(DocLoadError.timeout, "loading the catalogue")
        logger.error("the catalogue is empty")
        Application.promote(\.logger, with: logger)
        #expect("\(Application.logger)" == "ApplicationLogger")
    }
}
