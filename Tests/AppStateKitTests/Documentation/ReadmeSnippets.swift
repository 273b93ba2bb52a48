// The snippets of README.md (and the DocC catalog's overview, the same lines), verbatim, compiled
// and run. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import Testing

extension Application {
    var requestsServed: State<Int> { state(initial: 0) }                    // in memory
    var clock: Dependency<any Clock<Duration>> { dependency(ContinuousClock()) } // created once
    var listenPort: StoredState<Int> { storedState(initial: 8080, id: "listenPort") } // durable key-value store
    var pageCache: FileState<[String: String]> { fileState(initial: [:], filename: "pages.json", isBase64Encoded: false) } // a JSON file
}

struct Handler {
    @AppState(\.requestsServed) var requestsServed
    @AppDependency(\.clock) var clock

    func handle() async throws -> Duration {
        try await clock.measure { try await clock.sleep(for: .milliseconds(10)) }
    }
}

@Suite("README snippets", .isolatedApplication)
struct ReadmeSnippets {
    @Test func inFifteenLines() throws {
        Application.update(\.requestsServed) { $0 += 1 }    // atomic, from any thread
        var port = Application.storedState(\.listenPort)
        port.value = 9090                                   // on disk when this returns

        #expect(try Application.storedState(\.listenPort).read() == 9090)
        #expect(Handler().requestsServed == 1)
        #expect(Handler().clock is ContinuousClock)
        var cache = Application.fileState(\.pageCache)
        cache.value["/"] = "<html>"
        #expect(try Application.fileState(\.pageCache).read() == ["/": "<html>"])
    }

    @Test(.isolatedApplication, .overriding(\.clock, with: ImmediateClock()))
    func countsRequests() async throws {
        #expect(try await Handler().handle() == .milliseconds(10))   // slept on the immediate clock
        #expect(Handler().requestsServed == 0)
        Application.update(\.requestsServed) { $0 += 1 }
        #expect(Handler().requestsServed == 1)
    }

    @Test("the README's clock sleeps on a TestClock until the test advances it")
    func handlerOnATestClock() async throws {
        let clock = TestClock()
        let elapsed = try await Application.withOverrides { $0.override(\.clock, with: clock) } operation: { () async throws -> Duration in
            let handled = Task { try await Handler().handle() }
            while clock.sleeperCount == 0 { await Task.yield() }
            await clock.advance(by: .milliseconds(10))
            return try await handled.value
        }
        #expect(elapsed == .milliseconds(10))
    }
}
