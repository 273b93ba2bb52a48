// The snippets of the "Removing entries" section of Documentation/StateAndDependencies.md,
// compiled and run.
import Foundation
import Testing
import AppStateKit
import AppStateKitTesting

struct SnippetSession: Sendable, Equatable { let user: String }
final class SnippetTenantClient: Sendable {
    let id: String
    init(id: String) { self.id = id }
}

extension Application {
    subscript(snippetSession id: String) -> State<SnippetSession?> { state(initial: nil, feature: "Session", id: id) }
    subscript(snippetTenantClient id: String) -> Dependency<SnippetTenantClient> {
        dependency(SnippetTenantClient(id: id), feature: "Tenant", id: id)
    }
    var snippetScratch: State<[String]> { state(initial: [], id: UUID().uuidString) }
}

@Suite("Documentation snippets: removing entries", .isolatedApplication)
struct RemovalSnippets {
    @Test func removeByKeyPath() {
        let id = "s-1"
        let client = Application.dependency(\.[snippetTenantClient: id])
        var session = Application.state(\.[snippetSession: id])
        session.value = SnippetSession(user: "leif")
        // … when the session ends:
        #expect(Application.remove(\.[snippetSession: id]))
        #expect(Application.remove(dependency: \.[snippetTenantClient: id]))

        #expect(Application.state(\.[snippetSession: id]).value == nil)
        #expect(session.value == SnippetSession(user: "leif"), "the old handle is detached")
        #expect(Application.dependency(\.[snippetTenantClient: id]) !== client)
    }

    @Test func removeThroughHandle() {
        var scratch = Application.state(\.snippetScratch)   // a new entry
        scratch.value.append("draft")
        #expect(Application.remove(state: scratch))
        #expect(!Application.remove(state: scratch))
    }
}
