import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

extension Application {
    /// Declared here and in IdentitySharedDeclarations.swift with the same feature and id.
    var identitySharedA: State<Int> { state(initial: 0, feature: "Identity", id: "shared") }
}

private extension Application {
    var identityOtherID: State<Int> { state(initial: 0, feature: "Identity", id: "other") }
    var identityOtherFeature: State<Int> { state(initial: 0, feature: "Elsewhere", id: "shared") }
    var identitySiteA: State<Int> { state(initial: 1) }
    var identitySiteB: State<Int> { state(initial: 1) }
    var identityUnique: State<Int> { state(initial: 0, id: UUID().uuidString) }
    var identitySameNameDependency: Dependency<Int> { dependency(5, feature: "Identity", id: "shared") }
}

@Suite("Identity", .isolatedApplication)
struct IdentityTests {
    @Test("the same feature and id in two files is one entry")
    func sameIDSharesEntry() {
        var a = Application.state(\.identitySharedA)
        a.value = 17
        #expect(Application.state(\.identitySharedB).value == 17)
        Application.update(\.identitySharedB) { $0 += 1 }
        #expect(Application.state(\.identitySharedA).value == 18)
    }

    @Test("a different id or feature is another entry")
    func differentNamesAreDistinct() {
        var shared = Application.state(\.identitySharedA)
        shared.value = 3
        #expect(Application.state(\.identityOtherID).value == 0)
        #expect(Application.state(\.identityOtherFeature).value == 0)
    }

    @Test("a dependency and a state with the same name are different entries")
    func kindIsPartOfIdentity() {
        // Same feature, id and value type (Int); only the kind differs.
        #expect(Application.dependency(\.identitySameNameDependency) == 5)
        #expect(Application.state(\.identitySharedA).value == 0)
        var state = Application.state(\.identitySharedA)
        state.value = 9
        #expect(Application.dependency(\.identitySameNameDependency) == 5)
        #expect(Application.state(\.identitySharedA).value == 9)
    }

    @Test("declarations without id are identified by their call site")
    func callSiteIdentity() {
        var a = Application.state(\.identitySiteA)
        a.value = 10
        #expect(Application.state(\.identitySiteB).value == 1)
        let key = Application.current[keyPath: \.identitySiteA].entry.key
        guard case let .site(site) = key.name else {
            Issue.record("expected a call-site key, got \(key.readable)")
            return
        }
        #expect(site.fileID.description == "AppStateKitTests/IdentityTests.swift")
        #expect(site.function.description == "identitySiteA")
        #expect(key.readable.hasPrefix("AppStateKitTests/IdentityTests.swift:"))
        #expect(key.readable.hasSuffix(" (identitySiteA)"))
    }

    @Test("call-site keys compare by text, not by string storage")
    func callSiteEquality() {
        let a = CallSite(fileID: "Module/File.swift", function: "f", line: 3, column: 9)
        let b = CallSite(fileID: "Module/File.swift", function: "f", line: 3, column: 9)
        let otherFile = CallSite(fileID: "Module/Other.swift", function: "f", line: 3, column: 9)
        let otherColumn = CallSite(fileID: "Module/File.swift", function: "f", line: 3, column: 10)
        #expect(a == b)
        #expect(a.mixedBits == b.mixedBits)
        #expect(a != otherFile)
        #expect(a != otherColumn)
    }

    @Test("a UUID id makes a new, unreachable entry on every evaluation")
    func uuidIDIsUnreachable() {
        var first = Application.state(\.identityUnique)
        first.value = 42
        #expect(first.value == 42)
        #expect(Application.state(\.identityUnique).value == 0)
    }

    @Test("a declaration without an id is named by its call site, as codeID spells it")
    func callSiteID() {
        let scope = Application.current[keyPath: \.identitySiteA].scope
        #expect(scope.name == "App")
        // identitySiteA's call is at line 18 of this file, its `(` at column 42 (where #column points).
        #expect(scope.id == Application.codeID(fileID: #fileID, function: "identitySiteA", line: 18, column: 42))
        #expect(scope.id != Application.current[keyPath: \.identitySiteB].scope.id)
    }

    @Test("the scope exposes feature and id")
    func scope() {
        let scope = Application.current[keyPath: \.identityOtherFeature].scope
        #expect(scope == Application.Scope(name: "Elsewhere", id: "shared"))
        #expect(scope.key == "Elsewhere/shared")
    }
}
