import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var cycleA: Dependency<Int> { dependency(Application.dependency(\.cycleB) + 1, feature: "Cycle", id: "a") }
    var cycleB: Dependency<Int> { dependency(Application.dependency(\.cycleA) + 1, feature: "Cycle", id: "b") }
    var cycleSelf: Dependency<Int> { dependency(Application.dependency(\.cycleSelf), feature: "Cycle", id: "self") }
    var crossA: Dependency<Int> {
        dependency({
            crossAStarted.signal()
            crossBStarted.wait()
            return Application.dependency(\.crossB) + 1
        }(), feature: "Cross", id: "a")
    }
    var crossB: Dependency<Int> {
        dependency({
            crossBStarted.signal()
            crossAStarted.wait()
            return Application.dependency(\.crossA) + 1
        }(), feature: "Cross", id: "b")
    }
}

/// Make both factories run at once, on two threads, before either resolves the other.
private let crossAStarted = DispatchSemaphore(value: 0)
private let crossBStarted = DispatchSemaphore(value: 0)

@Suite("Dependency cycles", .isolatedApplication)
struct DependencyCycleTests {
    @Test("a cycle stops with the chain of keys instead of hanging")
    func cycleStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Application.dependency(\.cycleA)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: dependency cycle: Cycle.a → Cycle.b → Cycle.a."))
    }

    @Test("a dependency that resolves itself stops with its key")
    func selfCycleStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Application.dependency(\.cycleSelf)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: dependency cycle: Cycle.self → Cycle.self."))
    }

    @Test("a cycle that crosses threads is detected instead of deadlocking")
    func crossThreadCycleStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let other = Thread { _ = Application.dependency(\.crossB) }
            other.start()
            _ = Application.dependency(\.crossA)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        // Whichever thread blocks second sees the cycle, so either rotation may be reported.
        #expect(
            output.contains("AppStateKit: dependency cycle: Cross.a → Cross.b → Cross.a.")
                || output.contains("AppStateKit: dependency cycle: Cross.b → Cross.a → Cross.b.")
        )
    }
}
