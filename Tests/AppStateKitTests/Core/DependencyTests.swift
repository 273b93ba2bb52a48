import Foundation
import Synchronization
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private protocol Greeting: Sendable {
    func greet(_ name: String) -> String
}

private struct EnglishGreeting: Greeting {
    func greet(_ name: String) -> String { "Hello, \(name)" }
}

private final class Service: Sendable {
    let id = UUID()
}

private let factoryCalls = CallCounter()
private let racingCalls = CallCounter()
private let slowStarted = CallCounter()
private let slowFinished = CallCounter()
/// Holds the slow factory until the test has read another entry.
private let slowRelease = DispatchSemaphore(value: 0)

private extension Application {
    var dependencyGreeting: Dependency<any Greeting> { dependency(EnglishGreeting()) }
    var dependencyCounted: Dependency<Service> {
        dependency({ factoryCalls.increment(); return Service() }())
    }
    var dependencyRaced: Dependency<Service> {
        dependency({ racingCalls.increment(); Thread.sleep(forTimeInterval: 0.01); return Service() }())
    }
    var dependencyInner: Dependency<Int> { dependency(41) }
    var dependencyOuter: Dependency<Int> { dependency(Application.dependency(\.dependencyInner) + 1) }
    var dependencyDeepest: Dependency<String> { dependency("deep") }
    var dependencyMiddle: Dependency<String> {
        // Resolves its own dependency on another thread while the factory runs.
        dependency({
            let result = Locked<String>("")
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                result.withLock { $0 = Application.dependency(\.dependencyDeepest) + "er" }
                done.signal()
            }
            thread.start()
            done.wait()
            return result.withLock { $0 }
        }())
    }
    var dependencySlow: Dependency<Int> {
        dependency({ slowStarted.increment(); slowRelease.wait(); slowFinished.increment(); return 1 }())
    }
    var dependencyExisting: Dependency<Int> { dependency(99) }
    var dependencyActor: Dependency<CounterActor> { dependency(CounterActor()) }
}

private actor CounterActor {
    var count = 0
    func increment() -> Int { count += 1; return count }
}

@Suite("Dependency", .isolatedApplication)
struct DependencyTests {
    @Test("a protocol existential dependency resolves")
    func existential() {
        #expect(Application.dependency(\.dependencyGreeting).greet("Leif") == "Hello, Leif")
    }

    @Test("created lazily and exactly once")
    func createdOnce() {
        #expect(factoryCalls.value == 0)
        let first = Application.dependency(\.dependencyCounted)
        let second = Application.dependency(\.dependencyCounted)
        #expect(first === second)
        #expect(factoryCalls.value == 1)
    }

    @Test("64 tasks racing on first access call the factory once and share the instance")
    func racingFirstAccess() async {
        let ids = await withTaskGroup(of: UUID.self) { group in
            for _ in 0..<64 {
                group.addTask { Application.dependency(\.dependencyRaced).id }
            }
            return await group.reduce(into: Set<UUID>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(racingCalls.value == 1)
    }

    @Test("a factory may resolve other dependencies, also from another thread")
    func nestedCreation() {
        #expect(Application.dependency(\.dependencyOuter) == 42)
        #expect(Application.dependency(\.dependencyMiddle) == "deeper")
    }

    @Test("a slow factory does not block reads of existing entries")
    func slowFactoryDoesNotBlockReads() async throws {
        // Detached tasks and threads don't inherit task-locals: carry this test's isolated application.
        let scope = Application.currentContext
        _ = Application.dependency(\.dependencyExisting)
        let slow = Task.detached { scope.run { Application.dependency(\.dependencySlow) } }
        while slowStarted.value == 0 { try await Task.sleep(for: .milliseconds(1)) }
        // The factory is now blocked until `slowRelease` is signalled; had reads waited for the
        // registry, this read would never complete (the timeout turns that into a failure).
        let read = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            let done = DispatchSemaphore(value: 0)
            let value = Locked<Int?>(nil)
            Thread {
                value.withLock { $0 = scope.run { Application.dependency(\.dependencyExisting) } }
                done.signal()
            }.start()
            DispatchQueue.global().async {
                _ = done.wait(timeout: .now() + 30)
                continuation.resume(returning: value.withLock { $0 })
            }
        }
        #expect(read == 99)
        #expect(slowFinished.value == 0)
        slowRelease.signal()
        #expect(await slow.value == 1)
    }

    @Test("load(dependency:) creates the dependency and chains")
    func load() {
        let type = Application.load(dependency: \.dependencyInner).load(dependency: \.dependencyOuter)
        #expect(type == Application.self)
        #expect(Application.current.registry.existingEntry(for: Application.current[keyPath: \.dependencyOuter].source!) is DependencyEntry<Int>)
    }

    @Test("actors work as dependencies")
    func actorDependency() async {
        let counter = Application.dependency(\.dependencyActor)
        #expect(await counter.increment() == 1)
        #expect(await Application.dependency(\.dependencyActor).increment() == 2)
    }
}
