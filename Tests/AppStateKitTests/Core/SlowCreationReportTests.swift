import Foundation
import Testing
import AppStateKitTesting
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// The factory of `slowOuter` blocks until the waiting thread's report arrives.
private let slowStarted = DispatchSemaphore(value: 0)
private let slowRelease = DispatchSemaphore(value: 0)

private extension Application {
    var slowOuter: Dependency<Int> {
        dependency(Application.dependency(\.slowInner) + 1, feature: "Slow", id: "outer")
    }
    var slowInner: Dependency<Int> {
        dependency({
            slowStarted.signal()
            slowRelease.wait()
            return 1
        }(), feature: "Slow", id: "inner")
    }
}

@Suite("Waiting for another thread's creation", .isolatedApplication)
struct SlowCreationReportTests {
    @Test("a creation that waits unusually long reports once which keys it waits on and who creates them")
    func longWaitIsReported() throws {
        let messages = MessageCollector()
        Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { message in
            messages.append(message)
            slowRelease.signal()   // the report unblocks the factory: no hang, no timing
        }))
        Application.current.registry.slowCreationMilliseconds.store(20, ordering: .relaxed)
        let scope = Application.currentContext
        let creatorDone = DispatchSemaphore(value: 0)
        let watchdogDone = DispatchSemaphore(value: 0)
        let creator = Thread {
            scope.run { _ = Application.dependency(\.slowOuter) }
            creatorDone.signal()
            watchdogDone.signal()
        }
        creator.start()
        slowStarted.wait()
        // Safety net only: if no report ever comes, release the factory after a long while.
        let watchdog = Thread {
            if watchdogDone.wait(timeout: .now() + 30) == .timedOut { slowRelease.signal() }
        }
        watchdog.start()
        #expect(Application.dependency(\.slowOuter) == 2)
        creatorDone.wait()

        let reports = messages.messages
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(report.hasPrefix("AppStateKit: still waiting after 0.02 s for another thread to create an entry: thread 0x"))
        #expect(report.contains(" waits for Slow.outer, which thread 0x"))
        #expect(report.contains(" is creating (Slow.outer → Slow.inner). If this never ends, a factory or initial value is blocked on something only a waiting thread can provide"))
    }
}
