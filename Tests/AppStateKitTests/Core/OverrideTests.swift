import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var overrideName: Dependency<String> { dependency("original") }
    var overrideOrder: Dependency<String> { dependency("original") }
    var overrideReleased: Dependency<String> { dependency("original") }
    var overridePromoted: Dependency<String> { dependency("original") }
    var overrideAsync: Dependency<String> { dependency("original") }
}

@Suite("Overrides and promotion", .isolatedApplication)
struct OverrideTests {
    @Test("override replaces the instance until cancelled")
    func overrideAndCancel() {
        let override = Application.override(\.overrideName, with: "mock")
        #expect(Application.dependency(\.overrideName) == "mock")
        override.cancel()
        #expect(Application.dependency(\.overrideName) == "original")
        override.cancel()  // a second cancel does nothing
        #expect(Application.dependency(\.overrideName) == "original")
    }

    // Serialized: the cases share one global key (scoped isolation has its own tests).
    @Test("overrides of one key cancelled in any order leave the newest remaining one", .serialized,
          arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    func cancellationOrder(order: [Int]) {
        let overrides = ["a", "b", "c"].map { Application.override(\.overrideOrder, with: $0) }
        var remaining = Set(0..<3)
        for index in order {
            overrides[index].cancel()
            remaining.remove(index)
            let expected = remaining.max().map { ["a", "b", "c"][$0] } ?? "original"
            #expect(Application.dependency(\.overrideOrder) == expected)
        }
    }

    @Test("dropping the last reference restores the original")
    func releaseRestores() {
        do {
            let override = Application.override(\.overrideReleased, with: "temporary")
            #expect(Application.dependency(\.overrideReleased) == "temporary")
            withExtendedLifetime(override) {}
        }
        #expect(Application.dependency(\.overrideReleased) == "original")
    }

    @Test("cancel can be called from task-group children")
    func cancelFromTasks() async {
        let overrides = (0..<8).map { Application.override(\.overrideAsync, with: "mock \($0)") }
        await withTaskGroup(of: Void.self) { group in
            for override in overrides {
                group.addTask { override.cancel() }
            }
        }
        #expect(Application.dependency(\.overrideAsync) == "original")
    }

    @Test("promote replaces permanently and chains")
    func promote() {
        let type = Application.promote(\.overridePromoted, with: "promoted")
        #expect(type == Application.self)
        #expect(Application.dependency(\.overridePromoted) == "promoted")
        let override = Application.override(\.overridePromoted, with: "mock")
        #expect(Application.dependency(\.overridePromoted) == "mock")
        override.cancel()
        #expect(Application.dependency(\.overridePromoted) == "promoted")
    }
}
