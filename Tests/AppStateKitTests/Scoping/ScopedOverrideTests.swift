import Dispatch
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private protocol GreeterService: Sendable { func greet() -> String }
private struct LiveGreeter: GreeterService { func greet() -> String { "live" } }
private struct MockGreeter: GreeterService {
    let name: String
    func greet() -> String { name }
}
private struct Config: Sendable { var region = "live-region" }

private let liveFactoryCalls = CallCounter()
private let independentCalls = CallCounter()
private let numberedCalls = CallCounter()

private extension Application {
    var scopedGreeter: Dependency<any GreeterService> { dependency(LiveGreeter()) }
    var scopedConfig: Dependency<Config> { dependency(Config()) }
    var scopedExpensive: Dependency<String> { dependency({ liveFactoryCalls.increment(); return "expensive" }()) }
    /// A dependency that uses no other dependency.
    var scopedIndependent: Dependency<Int> { dependency(independentCalls.increment()) }
    /// A dependency whose instance may be `nil`.
    var scopedOptional: Dependency<String?> { dependency("live-optional") }
    /// A dependency whose factory resolves `scopedGreeter`.
    var scopedComposite: Dependency<String> { dependency("composite(\(Application.dependency(\.scopedGreeter).greet()))") }
    /// Like `scopedComposite`, numbered by creation.
    var scopedNumbered: Dependency<String> { dependency("\(Application.dependency(\.scopedGreeter).greet())-\(numberedCalls.increment())") }
    /// Named dependencies (looked up by the name's parts on this thread's memo).
    var scopedNamedGreeter: Dependency<any GreeterService> { dependency(LiveGreeter(), feature: "Scoped", id: "greeter") }
    var scopedNamedRegion: Dependency<String> { dependency("live-region", feature: "Scoped", id: "region") }
}

private struct Consumer {
    @AppDependency(\.scopedGreeter) var greeter
    @DependencyConstant(\.scopedConfig, \.region) var region
}

@Suite("Scoped overrides", .isolatedApplication)
struct ScopedOverrideTests {
    @Test("every way of reading the dependency sees the override inside the scope, and only there")
    func visibleEverywhereInside() {
        Application.withOverrides {
            $0.override(\.scopedGreeter, with: MockGreeter(name: "mock"))
            $0.override(\.scopedConfig, with: Config(region: "test-region"))
        } operation: {
            #expect(Application.dependency(\.scopedGreeter).greet() == "mock")
            #expect(Consumer().greeter.greet() == "mock")
            #expect(Consumer().region == "test-region")
            #expect(Application.dependencySlice(\.scopedConfig, \.region).value == "test-region")
        }
        #expect(Application.dependency(\.scopedGreeter).greet() == "live")
        #expect(Consumer().region == "live-region")
    }

    @Test("a named dependency this thread already read is overridden inside a scope, and the named ones it doesn't override stay the shared instances")
    func namedDependencyReadBeforeTheScope() {
        // Read first, so this thread's memo holds both: inside the scope, the memo must not
        // answer for the overridden one.
        #expect(Application.dependency(\.scopedNamedGreeter).greet() == "live")
        #expect(Application.dependency(\.scopedNamedRegion) == "live-region")
        Application.withOverrides { $0.override(\.scopedNamedGreeter, with: MockGreeter(name: "named-mock")) } operation: {
            #expect(Application.dependency(\.scopedNamedGreeter).greet() == "named-mock")
            #expect(Application.dependency(\.scopedNamedRegion) == "live-region")
            Application.withOverrides { $0.override(\.scopedNamedRegion, with: "test-region") } operation: {
                #expect(Application.dependency(\.scopedNamedRegion) == "test-region")
                #expect(Application.dependency(\.scopedNamedGreeter).greet() == "named-mock")
            }
            #expect(Application.dependency(\.scopedNamedRegion) == "live-region")
        }
        #expect(Application.dependency(\.scopedNamedGreeter).greet() == "live")
        #expect(Application.dependency(\.scopedNamedRegion) == "live-region")
    }

    @Test("declaring an override doesn't run the live factory")
    func keyCaptureSkipsFactory() {
        let before = liveFactoryCalls.value
        Application.withOverrides { $0.override(\.scopedExpensive, with: "cheap") } operation: {
            #expect(Application.dependency(\.scopedExpensive) == "cheap")
        }
        #expect(liveFactoryCalls.value == before)
    }

    @Test("child tasks inherit the scope: Task {}, task groups and async let")
    func childTasksInherit() async {
        await Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "parent")) } operation: {
            let unstructured = await Task { Application.dependency(\.scopedGreeter).greet() }.value
            async let child = Application.dependency(\.scopedGreeter).greet()
            let grouped = await withTaskGroup(of: String.self) { group in
                for _ in 0..<4 { group.addTask { Application.dependency(\.scopedGreeter).greet() } }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(unstructured == "parent")
            #expect(await child == "parent")
            #expect(grouped == Array(repeating: "parent", count: 4))
        }
    }

    @Test("detached tasks and other tasks don't see the scope; currentContext carries it across")
    func nonInheritance() async {
        await Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "scoped")) } operation: {
            let detached = await Task.detached { Application.dependency(\.scopedGreeter).greet() }.value
            #expect(detached == "live")

            let scope = Application.currentContext
            let carried = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
                DispatchQueue.global().async {
                    continuation.resume(returning: scope.run { Application.dependency(\.scopedGreeter).greet() })
                }
            }
            #expect(carried == "scoped")
            let queue = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
                DispatchQueue.global().async {
                    continuation.resume(returning: Application.dependency(\.scopedGreeter).greet())
                }
            }
            #expect(queue == "live")
        }
    }

    @Test("nested scopes layer and unwind")
    func nesting() {
        Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "outer")) } operation: {
            Application.withOverrides { $0.override(\.scopedConfig, with: Config(region: "inner")) } operation: {
                #expect(Application.dependency(\.scopedGreeter).greet() == "outer")
                #expect(Application.dependency(\.scopedConfig).region == "inner")
                Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "innermost")) } operation: {
                    #expect(Application.dependency(\.scopedGreeter).greet() == "innermost")
                }
                #expect(Application.dependency(\.scopedGreeter).greet() == "outer")
            }
            #expect(Application.dependency(\.scopedConfig).region == "live-region")
        }
    }

    @Test("a dependency first created inside a scope doesn't leak the override into the registry")
    func createdInsideDoesNotLeak() {
        let inside = Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "mock")) } operation: {
            Application.dependency(\.scopedComposite)
        }
        #expect(inside == "composite(mock)")
        #expect(Application.dependency(\.scopedComposite) == "composite(live)")
    }

    @Test("a dependency created inside a scope that spans an isolation scope is kept per application")
    func createdInsideIsKeptPerApplication() {
        Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "mock")) } operation: {
            let outside = Application.dependency(\.scopedNumbered)
            let isolated = Application.withIsolatedApplication {
                (Application.dependency(\.scopedNumbered), Application.dependency(\.scopedNumbered))
            }
            // The isolated application's registry is another: its dependency is its own, made
            // once for the scope, and never handed to the enclosing application.
            #expect(isolated.0 == isolated.1)
            #expect(isolated.0 != outside)
            #expect(isolated.0.hasPrefix("mock-"))
            #expect(Application.dependency(\.scopedNumbered) == outside)
        }
    }

    @Test("a dependency first created inside a scope without using an override is shared, created once")
    func independentCreatedInsideIsPublished() {
        let first = Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "a")) } operation: {
            Application.dependency(\.scopedIndependent)
        }
        let second = Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "b")) } operation: {
            Application.dependency(\.scopedIndependent)
        }
        #expect(first == second)
        #expect(Application.dependency(\.scopedIndependent) == first)
        #expect(independentCalls.value == 1)
    }

    @Test("a dependency that exists before the scope is the registry's instance inside it, promotions included")
    func existingDependencyIsSharedInside() {
        // Read outside first, so the scope finds it in this thread's memo.
        #expect(Application.dependency(\.scopedComposite) == "composite(live)")
        let inside = Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "mock")) } operation: {
            Application.dependency(\.scopedComposite)
        }
        #expect(inside == "composite(live)")

        Application.promote(\.scopedComposite, with: "promoted")
        let afterPromotion = Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "mock")) } operation: {
            Application.dependency(\.scopedComposite)
        }
        #expect(afterPromotion == "promoted")
    }

    @Test("a dependency read before stays overridden inside scopes while other tasks open and close scopes overriding it")
    func overrideSeenWhileOtherScopesComeAndGo() async {
        // Read outside first on every thread that runs a task below, so reads find memo slots:
        // the path that answers without asking the scope whenever no live scope overrides the key.
        #expect(Application.dependency(\.scopedGreeter).greet() == "live")
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<300 {
                        if Application.dependency(\.scopedGreeter).greet() != "live" { mismatches += 1 }
                        let name = "task-\(task)-\(round)"
                        Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: name)) } operation: {
                            if Application.dependency(\.scopedGreeter).greet() != name { mismatches += 1 }
                            // A nested scope overriding something else keeps the outer override.
                            Application.withOverrides { $0.override(\.scopedConfig, with: Config(region: name)) } operation: {
                                if Application.dependency(\.scopedGreeter).greet() != name { mismatches += 1 }
                                if Application.dependency(\.scopedConfig).region != name { mismatches += 1 }
                            }
                        }
                        if Application.dependency(\.scopedConfig).region != "live-region" { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(Application.dependency(\.scopedGreeter).greet() == "live")
    }

    @Test("errors thrown by the operation pass through")
    func throwsPassThrough() async {
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "x")) } operation: {
                throw Failure()
            }
        }
        do {
            try await Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "x")) } operation: {
                try await Task.sleep(for: .milliseconds(1))
                throw Failure()
            }
            Issue.record("expected the operation's error")
        } catch {
            #expect(error is Failure)
        }
    }

    @Test("setting a key twice in one scope keeps the last value and the scope's other overrides")
    func settingAKeyTwice() {
        Application.withOverrides {
            $0.override(\.scopedGreeter, with: MockGreeter(name: "first"))
            $0.override(\.scopedConfig, with: Config(region: "kept"))
            $0.override(\.scopedGreeter, with: MockGreeter(name: "second"))
        } operation: {
            #expect(Application.dependency(\.scopedGreeter).greet() == "second")
            #expect(Application.dependency(\.scopedConfig).region == "kept")
        }
        #expect(Application.dependency(\.scopedGreeter).greet() == "live")
    }

    @Test("an optional dependency overridden with nil reads nil inside the scope, not the registry's instance")
    func optionalOverriddenWithNil() {
        #expect(Application.dependency(\.scopedOptional) == "live-optional")
        Application.withOverrides { $0.override(\.scopedOptional, with: nil) } operation: {
            #expect(Application.dependency(\.scopedOptional) == nil)
        }
        #expect(Application.dependency(\.scopedOptional) == "live-optional")
    }

    @Test("the async scope and currentContext.run run their operation on the caller's actor, before and after it suspends")
    func asyncScopesKeepTheCallersActor() async {
        let recorder = ScopeRecorder()
        let seen = await recorder.readInsideScopes()
        #expect(seen == ["scoped", "scoped", "carried", "carried"])
        #expect(await recorder.steps == 4)
    }
}

/// Opens async scopes from inside an actor: the operations call the actor's synchronous
/// `readHere()` without `await` (so they compile as isolated to it), which checks at run time
/// that it runs on the actor.
private actor ScopeRecorder {
    private var seen: [String] = []
    /// How many reads ran on the actor.
    var steps: Int { seen.count }

    func readInsideScopes() async -> [String] {
        await Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "scoped")) } operation: {
            readHere()
            await Task.yield()
            readHere()
        }
        let scope = Application.withOverrides { $0.override(\.scopedGreeter, with: MockGreeter(name: "carried")) } operation: {
            Application.currentContext
        }
        await scope.run {
            readHere()
            await Task.yield()
            readHere()
        }
        return seen
    }

    /// Checks that it runs on this actor and records the greeter it sees.
    private func readHere() {
        preconditionIsolated()
        seen.append(Application.dependency(\.scopedGreeter).greet())
    }
}
