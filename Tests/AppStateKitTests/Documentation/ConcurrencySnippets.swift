// The snippet of Documentation/Concurrency.md, verbatim, compiled and run. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import Testing

actor Recorder {
    func record() -> Int {
        // No hop to the main actor, no `await`.
        Application.update(\.requestCount) { $0 += 1; return $0 }
    }
}

@Suite("Concurrency guide snippets", .isolatedApplication)
struct ConcurrencySnippets {
    @Test func synchronousFromAnActor() async {
        let recorder = Recorder()
        #expect(await recorder.record() == 1)
        #expect(await recorder.record() == 2)
        #expect(Application.state(\.requests).value == 2)  // the same entry (StateAndDependencies.md)
    }
}
