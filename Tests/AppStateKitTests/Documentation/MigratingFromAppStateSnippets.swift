// The snippet of Documentation/MigratingFromAppState.md: the one line that changes. The AppState-
// style code it keeps compiling is in Tests/AppStateKitTests/Compatibility/.
import AppStateKit   // was: import AppState
import AppStateKitTesting
import Testing

final class NetworkService: Sendable {
    let baseURL: String
    init(baseURL: String) { self.baseURL = baseURL }
}

extension Application {
    var networkService: Dependency<NetworkService> { dependency(NetworkService(baseURL: "https://api.example.com")) }
}

@Suite("Migration guide snippets", .isolatedApplication)
struct MigratingFromAppStateSnippets {
    @Test func appStateStyleCallsCompile() {
        var launches = Application.state(\.launches)
        launches.value = 1
        Application.reset(\.launches)
        #expect(Application.state(\.launches).value == 0)
    }

    @Test func sendableServiceAsADependency() {
        #expect(Application.dependency(\.networkService).baseURL == "https://api.example.com")
    }
}
