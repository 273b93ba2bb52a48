import AppStateKit
import AppStateKitTesting
import Synchronization
import Testing

private protocol Fetching: Sendable { func fetch() -> String }
private struct LiveFetcher: Fetching { func fetch() -> String { "network" } }
private struct MockFetcher: Fetching { func fetch() -> String { "mock" } }

/// A live service whose creation is the side effect a test must never cause: it counts.
private struct ChargingService: Fetching {
    /// Live instances made; only `liveFactoryNeverRuns` reads the dependency under the trait.
    static let made = Atomic<Int>(0)
    init() { Self.made.add(1, ordering: .relaxed) }
    func fetch() -> String { "LIVE CHARGE" }
}

extension Application {
    fileprivate var liveFetcher: Dependency<any Fetching> {
        dependency(LiveFetcher(), testValue: MockFetcher(), feature: "NoLive", id: "fetcher")
    }
    fileprivate var livePayments: Dependency<any Fetching> {
        dependency(ChargingService(), testValue: MockFetcher(), feature: "NoLive", id: "payments")
    }
    fileprivate var liveGreeting: Dependency<String> { dependency("hello", testValue: "test hello") }
    /// No test value: under the trait, reading it stops the process.
    fileprivate var liveCharge: Dependency<String> {
        dependency({ print("LIVE CHARGE 100"); return "charged" }(), feature: "NoLive", id: "charge")
    }
}

/// Under `.noLiveDependencies`, a dependency the test did not override never runs its live
/// factory: the read is a recorded failure naming it, and returns the declaration's test value;
/// without one, the process stops.
@Suite("No live dependencies", .isolatedApplication)
struct NoLiveDependenciesTests {
    @Test(.noLiveDependencies)
    func liveReadIsRecordedAndGetsTheTestValue() {
        withKnownIssue("the fetcher is reached on purpose") {
            #expect(Application.dependency(\.liveFetcher).fetch() == "mock")
        } matching: { issue in
            "\(issue)".contains("NoLive.fetcher was read in a test under .noLiveDependencies without an override, so it got its test value; its live factory did not run")
        }
    }

    @Test("under the check the live factory never runs, however often the dependency is read")
    func liveFactoryNeverRuns() {
        let reported = Locked<[String]>([])
        LiveDependencyCheck.$handler.withValue({ name in reported.withLock { $0.append(name) } }) {
            for _ in 0..<3 { #expect(Application.dependency(\.livePayments).fetch() == "mock") }
        }
        #expect(ChargingService.made.load(ordering: .relaxed) == 0)
        #expect(reported.withLock { $0.count } == 1)
    }

    @Test("a dependency without a test value stops the process before its live factory runs")
    func withoutTestValueStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardOutputContent, \.standardErrorContent]) {
            LiveDependencyCheck.$handler.withValue({ _ in }) {
                _ = Application.dependency(\.liveCharge)
            }
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!output.contains("LIVE CHARGE"))
        #expect(errors.contains("Dependency<Swift.String> NoLive.charge was read in a test under .noLiveDependencies without an override; its live factory did not run"))
        #expect(errors.contains("dependency(LiveValue(), testValue: TestValue())"))
    }

    @Test("a dependency declared without an id is named by its declaration's place")
    func callSiteDependencyIsNamedByItsDeclaration() {
        let reported = Locked<[String]>([])
        LiveDependencyCheck.$handler.withValue({ name in reported.withLock { $0.append(name) } }) {
            #expect(Application.dependency(\.liveGreeting) == "test hello")
        }
        let names = reported.withLock { $0 }
        #expect(names.count == 1)
        #expect(names.first?.hasPrefix("Dependency<Swift.String> AppStateKitTests/NoLiveDependenciesTests.swift:") == true)
        #expect(names.first?.contains(" (liveGreeting) was read") == true)
    }

    @Test(.noLiveDependencies, .overriding(\.liveFetcher, with: MockFetcher()))
    func overriddenDependenciesAndAppStateKitsOwnAreFine() {
        // Any recorded issue would fail this test.
        #expect(Application.dependency(\.liveFetcher).fetch() == "mock")
        Application.logger.debug("AppStateKit's own dependencies are private to the isolated application")
        _ = Application.dependency(\.fileManager)
        _ = Application.dependency(\.userDefaults)
    }

    @Test("each dependency is reported once, when its instance is made; a scoped override makes none")
    func eachDependencyIsReportedOnce() {
        let reported = Locked<[String]>([])
        LiveDependencyCheck.$handler.withValue({ name in reported.withLock { $0.append(name) } }) {
            for _ in 0..<3 { _ = Application.dependency(\.liveGreeting) }
            Application.withOverrides { $0.override(\.liveFetcher, with: MockFetcher()) } operation: {
                #expect(Application.dependency(\.liveFetcher).fetch() == "mock")
            }
        }
        let names = reported.withLock { $0 }
        #expect(names.count == 1, "\(names)")
        #expect(names.first?.contains("(liveGreeting)") == true)
    }

    @Test("without the trait, the live dependency is used silently and the test value never")
    func withoutTheTrait() {
        #expect(Application.dependency(\.liveFetcher).fetch() == "network")
        #expect(Application.dependency(\.liveGreeting) == "hello")
    }
}
