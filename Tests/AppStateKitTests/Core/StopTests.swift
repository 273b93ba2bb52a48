import Foundation
import Testing
import AppStateKitTesting
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

// Every stop listed in Documentation/ErrorHandling.md, with its message (the dependency cycle
// has its own suite, DependencyCycleTests; the scoped override of a non-declaration is in
// KeyCaptureTests).

private extension Application {
    var stopCounter: State<Int> { state(initial: 0, feature: "Stop", id: "counter") }
    var stopNotDeclared: Dependency<Int> { Dependency(source: nil, value: 0) }
}

@Suite("Stops", .isolatedApplication)
struct StopTests {
    @Test("reading a state inside its own update closure stops with the key and what to do")
    func reentryStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Application.update(\.stopCounter) { _ in _ = Application.state(\.stopCounter).value }
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains(
            "AppStateKit: State Stop.counter was accessed from inside its own update. An update closure, `modify`, or a compound assignment through `value` (`+=`, `append`, …) holds the entry's lock while it runs: use its inout value instead of reading or writing the same entry again."
        ))
    }

    @Test("using one values iterator from two tasks at once stops with what to do")
    func sharedIteratorStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var iterator = Application.values(of: \.stopCounter).makeAsyncIterator()
            _ = await iterator.next()   // the current value
            let copy = iterator
            // Nothing changes, so both wait on the same mailbox: whichever comes second stops.
            async let first: Int? = { var own = copy; return await own.next() }()
            async let second: Int? = { var own = copy; return await own.next() }()
            _ = await (first, second)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains(
            "AppStateKit: one iterator of Application.values(of:) was used by two tasks at once; give each task its own `for await` loop"
        ))
    }

    @Test("a global override or removal of a property that doesn't declare a dependency stops with what to do")
    func notADeclarationStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Application.remove(dependency: \.stopNotDeclared)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains(
            "doesn't declare a dependency, so it can't be overridden or removed. Declare it with `dependency(…)` in the property's body (`var api: Dependency<API> { dependency(LiveAPI()) }`) instead of returning a handle obtained elsewhere."
        ))
        let overridden = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Application.override(\.stopNotDeclared, with: 1)
        }
        let overrideOutput = String(decoding: overridden?.standardErrorContent ?? [], as: UTF8.self)
        #expect(overrideOutput.contains("doesn't declare a dependency"))
    }
}
