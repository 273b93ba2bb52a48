import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

@Suite("SecureState in an isolated application, and with an overridden keychain", .isolatedApplication)
struct SecureStateIsolationTests {
    @Test("an isolated application's keychain reads no process environment and writes into its sandbox")
    func isolatedKeychain() throws {
        let keychain = Application.dependency(\.keychain)
        // PATH is set in every process; an isolated keychain's environment is empty.
        #expect(ProcessInfo.processInfo.environment["PATH"] != nil)
        #expect(try keychain.read("path") == nil)
        try keychain.write("t0k3n", forKey: "apiToken")
        let origin = try #require(try keychain.origin(of: "apiToken"))
        #expect(origin.contains("/AppStateKit-isolated-"))
        #expect(origin.hasSuffix("/secrets/apiToken"))
        let path = String(origin.dropFirst("the secret store file ".count))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "t0k3n\n")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
    }

    @Test("what one isolated application writes, another doesn't see")
    func separateApplications() throws {
        var token = Application.secureState(\.greetingToken)
        token.value = "first"
        Application.withIsolatedApplication {
            #expect(Application.secureState(\.greetingToken).value == "anonymous")
        }
        #expect(token.value == "first")
    }

    @Test("a keychain override with initial values replaces every source, as a test double")
    func overriddenKeychain() throws {
        let keychain = Keychain(initialValues: ["dbPassword": "test-password"])
        try Application.withOverrides({ $0.override(\.keychain, with: keychain) }) { () throws in
            #expect(Application.secureState(\.testPassword).value == "test-password")
            var billing = Application.secureState(\.billingKey)
            billing.value = "written"
            #expect(keychain.get("Billing.apiKey") == "written")
            #expect(keychain.values() == ["dbPassword": "test-password", "Billing.apiKey": "written"])
            let required = try keychain.require(keys: ["dbPassword", "Billing.apiKey"])
            #expect(required === keychain)
            let missing = #expect(throws: SecureStateError.self) { try keychain.require("other") }
            #expect(missing?.description == "missing for secret \"other\": no source provides it")
        }
        #expect(Application.secureState(\.testPassword).value == nil)
    }

    @Test("the @SecureState wrapper reads and writes through the current application's keychain")
    func propertyWrapper() throws {
        struct Session {
            @SecureState(\.greetingToken) var token: String?
        }
        let session = Session()
        #expect(session.token == "anonymous")
        session.token = "t0k3n"
        #expect(Application.secureState(\.greetingToken).value == "t0k3n")
        session.token = nil
        #expect(session.token == "anonymous")
    }
}
