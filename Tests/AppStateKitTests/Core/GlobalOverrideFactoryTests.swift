import Foundation
import Synchronization
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// Stands for a client whose construction is expensive (a database connection).
private final class Database: Sendable {
    let label: String

    init(label: String) {
        self.label = label
    }
}

/// Counts the runs of one test's factory. Compared by identity, so a test's own counter can key
/// the declaration it counts (`\.[liveDatabase: runs]`).
private final class FactoryRuns: Hashable, Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .sequentiallyConsistent) }

    func increment() {
        count.add(1, ordering: .sequentiallyConsistent)
    }

    static func == (lhs: FactoryRuns, rhs: FactoryRuns) -> Bool { lhs === rhs }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

private extension Application {
    /// A dependency whose factory counts its runs in the test's `runs`.
    subscript(liveDatabase runs: FactoryRuns) -> Dependency<Database> {
        dependency({ runs.increment(); return Database(label: "live") }())
    }

    /// The same, with a factory slow enough for concurrent first reads to overlap.
    subscript(slowDatabase runs: FactoryRuns) -> Dependency<Database> {
        dependency({
            runs.increment()
            Thread.sleep(forTimeInterval: 0.01)
            return Database(label: "live")
        }())
    }
}

/// Runs `body` on `count` threads at once (passing each its index), in the calling test's
/// isolated application, and returns their results once all have finished.
private func onThreads<Result: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> Result) async -> [Result] {
    let scope = Application.currentContext
    let results = Locked<[Result]>([])
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            start.wait()
            let result = scope.run { body(index) }
            results.withLock { $0.append(result) }
            group.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        group.notify(queue: .global()) { continuation.resume() }
    }
    return results.withLock { $0 }
}

@Suite("Global overrides and promotion don't run the factory", .isolatedApplication)
struct GlobalOverrideFactoryTests {
    @Test("an override before first use serves reads without the factory; after cancel the factory runs once, lazily")
    func overrideBeforeFirstUse() {
        let runs = FactoryRuns()
        let override = Application.override(\.[liveDatabase: runs], with: Database(label: "fake"))
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "fake")
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "fake")
        #expect(runs.value == 0)
        override.cancel()
        #expect(runs.value == 0)
        let live = Application.dependency(\.[liveDatabase: runs])
        #expect(live.label == "live")
        #expect(runs.value == 1)
        #expect(Application.dependency(\.[liveDatabase: runs]) === live)
        #expect(runs.value == 1)
    }

    @Test("releasing an override made before first use leaves the dependency to be created on its next read")
    func releasedOverrideBeforeFirstUse() {
        let runs = FactoryRuns()
        do {
            let override = Application.override(\.[liveDatabase: runs], with: Database(label: "fake"))
            #expect(Application.dependency(\.[liveDatabase: runs]).label == "fake")
            withExtendedLifetime(override) {}
        }
        #expect(runs.value == 0)
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "live")
        #expect(runs.value == 1)
    }

    @Test("the entry an override made before first use stays in the registry, so whoever keeps it follows the instance created later")
    func entryStaysAcrossCancel() throws {
        let runs = FactoryRuns()
        let override = Application.override(\.[liveDatabase: runs], with: Database(label: "fake"))
        let entry = try #require(Application.current[keyPath: \.[liveDatabase: runs]].entry(in: Application.current))
        override.cancel()
        #expect(entry.awaitsValue)
        let live = Application.dependency(\.[liveDatabase: runs])
        #expect(Application.current[keyPath: \.[liveDatabase: runs]].entry(in: Application.current) === entry)
        #expect(entry.currentValue() === live)
        #expect(!entry.awaitsValue)
        #expect(runs.value == 1)
    }

    @Test("a promotion before first use makes the value the instance, for good, without the factory")
    func promoteBeforeFirstUse() {
        let runs = FactoryRuns()
        let promoted = Database(label: "promoted")
        Application.promote(\.[liveDatabase: runs], with: promoted)
        #expect(Application.dependency(\.[liveDatabase: runs]) === promoted)
        #expect(Application.dependency(\.[liveDatabase: runs]) === promoted)
        // An override on top and its cancellation come back to the promoted instance.
        let override = Application.override(\.[liveDatabase: runs], with: Database(label: "fake"))
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "fake")
        override.cancel()
        #expect(Application.dependency(\.[liveDatabase: runs]) === promoted)
        #expect(runs.value == 0)
    }

    @Test("a promotion under an override made before first use becomes the instance once the override goes")
    func promoteUnderOverride() {
        let runs = FactoryRuns()
        let override = Application.override(\.[liveDatabase: runs], with: Database(label: "fake"))
        Application.promote(\.[liveDatabase: runs], with: Database(label: "promoted"))
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "fake")
        override.cancel()
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "promoted")
        #expect(runs.value == 0)
    }

    @Test("two overrides before first use, cancelled in either order, leave the newest remaining one, then the factory's instance",
          arguments: [[0, 1], [1, 0]])
    func stackedOverrides(order: [Int]) {
        let runs = FactoryRuns()
        let labels = ["first", "second"]
        let overrides = labels.map { Application.override(\.[liveDatabase: runs], with: Database(label: $0)) }
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "second")
        overrides[order[0]].cancel()
        #expect(Application.dependency(\.[liveDatabase: runs]).label == labels[order[1]])
        #expect(runs.value == 0)
        overrides[order[1]].cancel()
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "live")
        #expect(runs.value == 1)
    }

    @Test("an override of a dependency that exists replaces it and cancelling restores the same instance")
    func overrideOfExistingInstance() {
        let runs = FactoryRuns()
        let live = Application.dependency(\.[liveDatabase: runs])
        #expect(runs.value == 1)
        let override = Application.override(\.[liveDatabase: runs], with: Database(label: "fake"))
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "fake")
        override.cancel()
        #expect(Application.dependency(\.[liveDatabase: runs]) === live)
        #expect(runs.value == 1)
    }

    @Test("a scoped override layers over a global override made before first use")
    func scopedOverGlobal() {
        let runs = FactoryRuns()
        let override = Application.override(\.[liveDatabase: runs], with: Database(label: "global"))
        let scoped = Application.withOverrides {
            $0.override(\.[liveDatabase: runs], with: Database(label: "scoped"))
        } operation: {
            Application.dependency(\.[liveDatabase: runs]).label
        }
        #expect(scoped == "scoped")
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "global")
        #expect(runs.value == 0)
        override.cancel()
        #expect(Application.dependency(\.[liveDatabase: runs]).label == "live")
        #expect(runs.value == 1)
    }

    @Test("removing a dependency overridden before first use leaves the override reaching no one")
    func removeWhileOverridden() {
        let runs = FactoryRuns()
        let override = Application.override(\.[liveDatabase: runs], with: Database(label: "fake"))
        #expect(Application.remove(dependency: \.[liveDatabase: runs]))
        #expect(runs.value == 0)
        let live = Application.dependency(\.[liveDatabase: runs])
        #expect(live.label == "live")
        override.cancel()
        #expect(Application.dependency(\.[liveDatabase: runs]) === live)
        #expect(runs.value == 1)
    }

    @Test("8 threads racing the first read after an override is cancelled run the factory once")
    func racingFirstReadsAfterCancel() async {
        let runs = FactoryRuns()
        let override = Application.override(\.[slowDatabase: runs], with: Database(label: "fake"))
        #expect(Application.dependency(\.[slowDatabase: runs]).label == "fake")
        await override.cancel()
        #expect(runs.value == 0)
        let read = await onThreads(8) { _ in Application.dependency(\.[slowDatabase: runs]) }
        #expect(read.count == 8)
        #expect(read.allSatisfy { $0 === read[0] && $0.label == "live" })
        #expect(runs.value == 1)
    }

    @Test("reads racing the cancellation see the override or the one instance the factory made")
    func readsRacingCancellation() async {
        let runs = FactoryRuns()
        let fake = Database(label: "fake")
        let override = Application.override(\.[slowDatabase: runs], with: fake)
        // Half the threads cancel (only the first cancel counts) before they read.
        let read = await onThreads(8) { index -> Database in
            if index.isMultiple(of: 2) { override.cancel() }
            return Application.dependency(\.[slowDatabase: runs])
        }
        await override.cancel()
        let after = Application.dependency(\.[slowDatabase: runs])
        #expect(after.label == "live")
        #expect(read.allSatisfy { $0 === fake || $0 === after })
        #expect(runs.value == 1)
    }
}
