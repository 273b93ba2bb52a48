// The snippets of README.md (and the DocC catalog's overview, the same lines), verbatim, compiled
// and run. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import Testing

extension Application {
    var requestsServed: State<Int> { state(initial: 0) }                    // in memory
    var clock: Dependency<any Clock<Duration>> { dependency(ContinuousClock()) } // created once
    var listenPort: StoredState<Int> { storedState(initial: 8080, id: "listenPort") } // durable key-value store
    var pageCache: FileState<[String: String]> { fileState(initial: [:], filename: "pages.json") }
}

struct Handler {
    @AppState(\.requestsServed) var requestsServed
    @AppDependency(\.clock) var clock
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

    @Test(.isolatedApplication, .overriding(\.clock, with: TestClock()))
    func countsRequests() {
        #expect(Handler().clock is TestClock)
        #expect(Handler().requestsServed == 0)
        Application.update(\.requestsServed) { $0 += 1 }
        #expect(Handler().requestsServed == 1)
    }
}
