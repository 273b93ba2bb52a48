// The snippets of the "Removing entries" section of Documentation/StateAndDependencies.md,
// compiled verbatim and run.
import Foundation
import Testing
import AppStateKit
import AppStateKitTesting

struct UserSession: Sendable, Equatable { let user: String }
final class TenantClient: Sendable {
    let id: String
    init(id: String) { self.id = id }
}

extension Application {
    subscript(session id: String) -> State<UserSession?> { state(initial: nil, feature: "Session", id: id) }
    subscript(tenantClient id: String) -> Dependency<TenantClient> { dependency(TenantClient(id: id), feature: "Tenant", id: id) }
}

extension Application {
    var scratch: State<[String]> { state(initial: [], id: UUID().uuidString) }
}

@Suite("Documentation snippets: removing entries", .isolatedApplication)
struct RemovalSnippets {
    @Test func removeByKeyPath() {
        let id = "s-1"
        let client = Application.dependency(\.[tenantClient: id])

        var session = Application.state(\.[session: id])
        session.value = UserSession(user: "leif")
        // … when the session ends:
        Application.remove(state: session)             // State, StoredState, FileState, SyncState, SecureState handles
        Application.remove(dependency: \.[tenantClient: id])

        #expect(Application.state(\.[session: id]).value == nil)
        #expect(session.value == UserSession(user: "leif"), "the old handle is detached")
        #expect(Application.dependency(\.[tenantClient: id]) !== client)
    }

    @Test func removeThroughHandle() {
        var scratch = Application.state(\.scratch)   // a new entry
        scratch.value.append("draft")
        Application.remove(state: scratch)

        #expect(!Application.remove(state: scratch), "the entry is already gone")
    }
}
