// The snippets of README.md, GettingStarted.md, Persistence.md, Testing.md, Observation.md and
// ErrorHandling.md, compiled and run (with stand-ins for the reader's own types).
import AppStateKit
import AppStateKitTesting
import Foundation
import Observation
import Testing

// README
extension Application {
    var readmeRequests: State<Int> { state(initial: 0) }
    var readmeClock: Dependency<any Clock<Duration>> { dependency(ContinuousClock()) }
    var readmePort: StoredState<Int> { storedState(initial: 8080, id: "port") }
    var readmeCache: FileState<[String: String]> { fileState(initial: [:], filename: "cache.json") }
}

struct ReadmeHandler {
    @AppState(\.readmeRequests) var requests
    @AppDependency(\.readmeClock) var clock
}

// GettingStarted
struct GuideGreeter: Sendable {
    let greeting: String
    func greet(_ name: String) -> String { "\(greeting), \(name)!" }
}

extension Application {
    var launches: State<Int> { state(initial: 0) }
    var greeter: Dependency<GuideGreeter> { dependency(GuideGreeter(greeting: "Hello")) }
    var userName: StoredState<String> { storedState(initial: "friend", id: "userName") }
    var history: FileState<[String]> { fileState(initial: [], filename: "history.json", isBase64Encoded: false) }
}

struct Session {
    @AppState(\.launches) var launches
    @AppDependency(\.greeter) var greeter
    @StoredState(\.userName) var userName
    @FileState(\.history) var history
}

// Persistence
struct GuideTodoItem: Codable, Equatable, Sendable { var title: String }

extension Application {
    var port: StoredState<Int> { storedState(initial: 8080, feature: "Server", id: "port") }
    var token: StoredState<String?> { storedState(feature: "Auth", id: "token") }
    var tasks: FileState<[GuideTodoItem]> { fileState(initial: [], filename: "tasks.json", isBase64Encoded: false) }
}

// Testing
protocol Payments: Sendable { func charge() -> Bool }
struct LivePayments: Payments { func charge() -> Bool { false } }
struct MockPayments: Payments { func charge() -> Bool { true } }

extension Application {
    var payments: Dependency<any Payments> { dependency(LivePayments()) }
    var orders: State<[Int]> { state(initial: []) }
}

func checkout() async throws {
    if Application.dependency(\.payments).charge() { Application.update(\.orders) { $0.append(1) } }
}

// Observation
struct ServerConfig: Codable, Sendable { var rateLimit = 10 }
extension Application {
    var guideConfig: State<ServerConfig> { state(initial: ServerConfig()) }
    var processed: State<Int> { state(initial: 0) }
    var guideBadFile: FileState<Int> { fileState(initial: 0, filename: "../escape") }
}

/// Every guide runs isolated: nothing here touches the user's files or the shared registry.
@Suite("Guide snippets", .isolatedApplication)
struct GuideSnippets {
    @Test func readme() {
        Application.update(\.readmeRequests) { $0 += 1 }
        var port = Application.storedState(\.readmePort)
        port.value = 9090
        #expect(Application.storedState(\.readmePort).value == 9090)
        #expect(ReadmeHandler().requests == 1)
        _ = ReadmeHandler().clock
    }

    @Test func gettingStarted() {
        Application.update(\.launches) { $0 += 1 }
        let greeter = Application.dependency(\.greeter)
        let name = Application.storedState(\.userName).value
        var history = Application.fileState(\.history)
        history.value.append(greeter.greet(name))
        #expect(Session().history == ["Hello, friend!"])
        #expect(Session().launches == 1)
    }

    @Test(.overriding(\.greeter, with: GuideGreeter(greeting: "Hi")))
    func gettingStartedTest() {
        #expect(Application.dependency(\.greeter).greet("Ada") == "Hi, Ada!")
        #expect(Application.state(\.launches).value == 0)
    }

    @Test func persistence() throws {
        var port = Application.storedState(\.port)
        port.value = 9090
        try Application.fileState(\.tasks).write([GuideTodoItem(title: "Ship")])
        #expect(Application.fileState(\.tasks).value == [GuideTodoItem(title: "Ship")])
        #expect(Application.storedState(\.token).value == nil)
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: NSTemporaryDirectory() + "guide-\(UUID().uuidString).json", durability: .processCrashSafe))
        Application.promote(\.userDefaults, with: InMemoryDefaults())
    }

    @Test(.overriding(\.payments, with: MockPayments()))
    func testingGuide() async throws {
        try await checkout()
        #expect(Application.state(\.orders).value.count == 1)
        try await withIsolatedApplication(overriding: { $0.override(\.payments, with: MockPayments()) }) {
            try await checkout()
            #expect(Application.state(\.orders).value.count == 1)
        }
        let scope = Application.currentScope
        #expect(scope.isIsolated)
    }

    @Test func observationGuide() async {
        let fired = Locked(false)
        withObservationTracking {
            _ = Application.state(\.guideConfig).value
        } onChange: {
            fired.withLock { $0 = true }
        }
        Application.update(\.guideConfig) { $0.rateLimit = 20 }
        #expect(fired.withLock { $0 })
        Application.notifyChange()

        let progress = Task {
            for await count in Application.values(of: \.processed) where count == 3 { return count }
            return -1
        }
        while Application.changeStreamCount == 0 { await Task.yield() }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { Application.update(\.processed) { $0 += 1 } } }
        }
        #expect(await progress.value == 3)
    }

    @Test func errorHandlingGuide() {
        var caught: PersistenceError?
        do {
            try Application.fileState(\.tasks).write([])
            var bad = Application.fileState(\.guideBadFile)
            bad.value = 2   // reported, nothing written
            try bad.write(1)
        } catch let error as PersistenceError {
            caught = error
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(caught?.kind == .invalidFilename)
    }
}

import Synchronization
