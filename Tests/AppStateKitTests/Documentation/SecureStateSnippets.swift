// The snippets of Documentation/SecureState.md, verbatim, compiled and run. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

extension Application {
    var dbPassword: SecureState { secureState(id: "dbPassword") }
    var apiToken: SecureState { secureState(feature: "Todo", id: "apiToken") }
}

@Suite("SecureState guide snippets", .isolatedApplication)
struct SecureStateSnippets {
    @Test func declareReadAndWrite() throws {
        let password = Application.secureState(\.dbPassword).value   // String?, nil when no source has it
        var token = Application.secureState(\.apiToken)
        token.value = "t0k3n"          // stored in the writable store
        token.value = nil              // removed

        #expect(password == nil)
        #expect(token.value == nil)
        #expect(token.key == "Todo.apiToken")
    }

    @Test func changeTheOrder() throws {
        // Only chooses the sources (of this isolated application); the test reads nothing through them.
        Application.promote(\.keychain, with: Keychain(sources: [.credentialsDirectory(), .secretsDirectory("/etc/inventory/secrets")]))
        #expect(Application.dependency(\.keychain).sources == [.credentialsDirectory(), .secretsDirectory("/etc/inventory/secrets")])
    }
}

@Test(.isolatedApplication)
func signsRequests() {
    Application.withOverrides({ $0.override(\.keychain, with: Keychain(initialValues: ["dbPassword": "test-password"])) }) {
        #expect(Application.secureState(\.dbPassword).value == "test-password")
    }
}

@Test(.isolatedApplication)
func refusesAWorldReadableToken() throws {
    let files = InMemoryFileSystem()
    let keychain = Keychain(sources: [.fileStore(directory: "/home/me/.config/todo/secrets")], environment: [:], fileManager: files)
    try keychain.write("t0k3n", forKey: "Todo.apiToken")
    files.setPermissions(0o644, atPath: "/home/me/.config/todo/secrets/Todo.apiToken")
    #expect(throws: SecureStateError.self) { try keychain.read("Todo.apiToken") }
}
