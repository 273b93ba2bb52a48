import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 46: `Keychain.listedKeys()`, which `appstatekit secrets list` shows (never values).
@Suite("Keychain: listing keys without values", .isolatedApplication)
struct KeychainListingTests {
    @Test("keys of the credential and secrets directories and the store, sorted and once each; environment-only keys only when given")
    func listsEverySource() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/creds/dbPassword", text: "p")
        files.createFile(atPath: "/run/secrets/apiToken", text: "t")
        files.createFile(atPath: "/run/secrets/.hidden", text: "h")
        let keychain = testKeychain(files, environment: ["CREDENTIALS_DIRECTORY": "/creds", "ENV_ONLY": "e"])
        try keychain.write("s", forKey: "stored")
        try keychain.write("again", forKey: "stored")
        #expect(try keychain.listedKeys() == ["apiToken", "dbPassword", "stored"])
        #expect(try keychain.origin(of: "envOnly") == "the environment variable ENV_ONLY")

        let given = Keychain(
            sources: [.environment()], keys: ["envOnly"], environment: ["ENV_ONLY": "e"], fileManager: files
        )
        #expect(try given.listedKeys() == ["envOnly"])
    }

    @Test("a source that can't be listed is an error naming its directory")
    func unlistable() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/home/me/.config/app/secrets/x", text: "v")
        files.createFile(atPath: "/run/secrets/y", text: "w")
        files.fail(.list, at: "/run/secrets", with: EIO)
        let error = #expect(throws: SecureStateError.self) { try testKeychain(files).listedKeys() }
        #expect(error?.description.contains("/run/secrets") == true)
    }
}
