import Foundation
import Testing
import AppStateKitTesting
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private let regionFactoryCalls = CallCounter()

private extension Application {
    var captureRegion: Dependency<String> {
        dependency({ regionFactoryCalls.increment(); return "eu" }(), feature: "Capture", id: "region")
    }
    var captureTenant: State<String> { state(initial: "none", feature: "Capture", id: "tenant") }
    /// Chooses its id from a dependency of another type.
    var capturePort: Dependency<Int> {
        dependency(8080, feature: "Capture", id: "port-\(Application.dependency(\.captureRegion))")
    }
    /// Chooses its id from a dependency of its own type.
    var captureName: Dependency<String> {
        dependency("live", feature: "Capture", id: "name-\(Application.dependency(\.captureRegion))")
    }
    /// Chooses its id from a state.
    var captureLimit: Dependency<Int> {
        dependency(1, feature: "Capture", id: "limit-\(Application.state(\.captureTenant).value)")
    }
    /// Returns a handle it didn't declare.
    var captureNotDeclared: Dependency<Int> { Dependency(source: nil, value: 0) }
}

@Suite("Scoped overrides of declarations that read other entries", .isolatedApplication)
struct KeyCaptureTests {
    @Test("an overridden declaration may read a dependency of another type to choose its id")
    func idFromDependencyOfAnotherType() {
        let port = Application.withOverrides { $0.override(\.capturePort, with: 1) } operation: {
            Application.dependency(\.capturePort)
        }
        #expect(port == 1)
        #expect(Application.dependency(\.capturePort) == 8080)
    }

    @Test("an overridden declaration may read a dependency of its own type to choose its id")
    func idFromDependencyOfSameType() {
        let (name, region) = Application.withOverrides { $0.override(\.captureName, with: "mock") } operation: {
            (Application.dependency(\.captureName), Application.dependency(\.captureRegion))
        }
        #expect(name == "mock")
        #expect(region == "eu", "only the declaration itself is overridden")
        #expect(Application.dependency(\.captureName) == "live")
    }

    @Test("an overridden declaration may read a state to choose its id; the state's current value counts")
    func idFromState() {
        var tenant = Application.state(\.captureTenant)
        tenant.value = "acme"
        let limit = Application.withOverrides { $0.override(\.captureLimit, with: 2) } operation: {
            Application.dependency(\.captureLimit)
        }
        #expect(limit == 2)
    }

    @Test("a scoped override finds the key the declaration computes when the override is set, not one remembered from an earlier override")
    func scopedOverrideFollowsTheCurrentId() {
        var tenant = Application.state(\.captureTenant)
        tenant.value = "first"
        let first = Application.withOverrides { $0.override(\.captureLimit, with: 2) } operation: {
            Application.dependency(\.captureLimit)
        }
        tenant.value = "second"
        let second = Application.withOverrides { $0.override(\.captureLimit, with: 3) } operation: {
            Application.dependency(\.captureLimit)
        }
        #expect(first == 2)
        #expect(second == 3, "the override of limit-second, not of limit-first")
        #expect(Application.dependency(\.captureLimit) == 1)
    }

    @Test("a global override finds the key the declaration computes when the override is set")
    func globalOverrideFollowsTheCurrentId() {
        var tenant = Application.state(\.captureTenant)
        tenant.value = "one"
        let one = Application.override(\.captureLimit, with: 4)
        defer { one.cancel() }
        tenant.value = "two"
        #expect(Application.dependency(\.captureLimit) == 1, "limit-two is not overridden")
        let two = Application.override(\.captureLimit, with: 5)
        defer { two.cancel() }
        #expect(Application.dependency(\.captureLimit) == 5)
        tenant.value = "one"
        #expect(Application.dependency(\.captureLimit) == 4)
    }

    @Test("overriding a property that returns a handle without declaring it stops with a message saying what to do")
    func notADeclarationStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Application.withOverrides { $0.override(\.captureNotDeclared, with: 1) } operation: {}
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        // (A private property's key path prints without its name.)
        #expect(output.contains("doesn't declare a dependency, so it can't be overridden or removed. Declare it with `dependency(…)` in the property's body"))
    }
}
