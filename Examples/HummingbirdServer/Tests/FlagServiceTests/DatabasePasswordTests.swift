import AppStateKit
import AppStateKitTesting
import FlagService
import Foundation
import Testing

@Suite("the database password comes through SecureState", .isolatedApplication)
struct DatabasePasswordTests {
    /// The server's default keychain sources, over files in memory and `environment`.
    func keychain(_ files: InMemoryFileSystem, environment: [String: String]) -> Keychain {
        Keychain(sources: SecretSource.defaultSources, environment: environment, fileManager: files)
    }

    @Test func fromASystemdCredentialsDirectory() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/run/credentials/flag-server.service/dbPassword", text: "pg-secret\n")
        Application.promote(\.keychain, with: keychain(files, environment: [
            "CREDENTIALS_DIRECTORY": "/run/credentials/flag-server.service", "DB_PASSWORD": "from-environment",
        ]))
        #expect(try databasePassword(legacyVariable: "legacy") == "pg-secret")
    }

    @Test func fallsBackToTheEnvironmentAndTheLegacyVariable() throws {
        Application.promote(\.keychain, with: keychain(InMemoryFileSystem(), environment: ["DB_PASSWORD": "from-environment"]))
        #expect(try databasePassword(legacyVariable: "legacy") == "from-environment")
        Application.promote(\.keychain, with: keychain(InMemoryFileSystem(), environment: [:]))
        #expect(try databasePassword(legacyVariable: "legacy") == "legacy")
        #expect(try databasePassword(legacyVariable: nil) == nil)
    }

    @Test func aBrokenCredentialStopsTheServerNamingTheFile() throws {
        let files = InMemoryFileSystem()
        files.createDirectory(atPath: "/run/credentials/flag-server.service/dbPassword")
        Application.promote(\.keychain, with: keychain(files, environment: ["CREDENTIALS_DIRECTORY": "/run/credentials/flag-server.service"]))
        let error = #expect(throws: SecureStateError.self) { try databasePassword(legacyVariable: "legacy") }
        #expect(error?.source == "the systemd credential file /run/credentials/flag-server.service/dbPassword")
    }
}
