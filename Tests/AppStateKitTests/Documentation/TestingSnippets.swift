// The library-API snippets of Documentation/Testing.md, verbatim, compiled and run (its test files
// are TestingSwiftTestingSnippet.swift and TestingXCTestSnippet.swift). Keep them in step.
import AppStateKit
import AppStateKitTesting
import Dispatch
import Testing

@Suite("Testing guide snippets", .isolatedApplication)
struct TestingSnippets {
    @Test func withoutTheMockNothingIsOrdered() async throws {
        try await checkout()
        #expect(Application.state(\.orders).value.isEmpty)
    }

    @Test func libraryAPI() {
        let result = Application.withOverrides {
            $0.override(\.clock, with: TestClock())
            $0.override(\.api, with: MockAPIClient())
        } operation: {
            makeReport()
        }

        Application.withIsolatedApplication {
            Application.update(\.counter) { $0 += 1 }   // this scope's counter only
        }

        #expect(result == "test clock, mock")
        #expect(makeReport() == "real clock, live")
        #expect(Application.state(\.counter).value == 0)
    }

    @Test(.isolatedApplication, .noLiveDependencies, .overriding(\.payments, with: MockPayments()))
    func chargesTheMock() async throws {
        try await checkout()   // reaching any other dependency of the app fails the test
        #expect(Application.state(\.orders).value == [1])
    }

    @Test(.isolatedApplication)
    func timesOut() async throws {
        let clock = TestClock()
        try await Application.withOverrides { $0.override(\.clock, with: clock) } operation: {
            let waiting = Task { try await Application.dependency(\.clock).sleep(for: .seconds(30)) }
            while clock.sleeperCount == 0 { await Task.yield() }   // the task is asleep
            await clock.advance(by: .seconds(30))
            try await waiting.value
        }
    }

    @Test func carryingTheContext() async {
        let context = Application.currentContext
        DispatchQueue.global().async {
            context.run { handle() }   // same overrides, same isolated application
        }

        #expect(await eventually { handledIsolated.withLock { $0 } == [true] })
    }
}
