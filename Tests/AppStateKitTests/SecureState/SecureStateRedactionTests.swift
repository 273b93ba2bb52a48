import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// The secret every redaction test sets; it must appear in nothing AppStateKit prints.
private let secret = "S3cr3t-Value-7f1c"

/// Runs every operation of SecureState and its keychain that prints, logs or throws, while
/// `secret` is set in each source, and writes every description, error and log line to standard
/// error (the default logger writes there too).
private func exerciseEverythingThatPrints() {
    func emit(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    Application.withIsolatedApplication {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/creds/dbPassword", text: secret + "\n")
        files.createFile(atPath: "/run/secrets/Billing.apiKey", text: secret + "\n")
        let keychain = Keychain(
            sources: [.credentialsDirectory(), .secretsDirectory(), .environment(), .fileStore(directory: "/store")],
            keys: ["dbPassword"],
            environment: ["CREDENTIALS_DIRECTORY": "/creds", "TESTS_FROM_ENV": secret],
            fileManager: files, sizeLimit: 64
        )
        Application.promote(\.keychain, with: keychain)
        var password = Application.secureState(\.testPassword)
        var billing = Application.secureState(\.billingKey)
        var greeting = Application.secureState(\.greetingToken)
        _ = password.value
        _ = billing.value
        greeting.value = secret  // written to the store
        _ = greeting.value
        password.value = secret + "-changed"  // refused: a read-only source provides it
        billing.value = nil                   // refused too
        do { try password.write("x") } catch { emit("error: \(error)"); emit("reflecting: \(String(reflecting: error))") }
        files.setPermissions(0o644, atPath: "/store/Tests.greeting")
        _ = greeting.value                    // refused: insecure permissions
        do { _ = try greeting.read() } catch { emit("error: \(error)"); emit("localized: \(error.localizedDescription)") }
        greeting.value = String(repeating: secret, count: 10)  // too large
        _ = keychain.values()
        keychain.set(value: secret, forKey: "dbPassword")
        keychain.remove("dbPassword")
        _ = keychain.get("Tests.fromEnv")
        do { try keychain.require(keys: ["missing", "dbPassword"]) } catch { emit("error: \(error)") }
        emit("application: \(Application.description)")
        emit("handle: \(password) \(String(reflecting: billing))")
        var dumped = ""
        dump(greeting, to: &dumped)
        emit("dump: \(dumped)")
        emit("mirror: \(Mirror(reflecting: password).children.map { "\($0.label ?? ""): \($0.value)" })")
        emit("keychain: \(keychain) \(Application.dependency(\.keychain))")
        emit("wrapper: \(String(describing: SecureState(\.testPassword)))")
        emit("done")
    }
}

/// A configuration a dependency might hold, with a password (like `PostgresClient.Configuration`).
struct RedactionDatabaseSettings: Sendable {
    var host = "db.internal"
    var password = "Pa55-in-config-e81d"
}

private extension Application {
    var databaseSettings: Dependency<RedactionDatabaseSettings> { dependency(RedactionDatabaseSettings()) }
}

@Suite("SecureState never prints a secret", .isolatedApplication)
struct SecureStateRedactionTests {
    @Test("with debug logging on, no description, log line or error contains the secret")
    func noMessageContainsTheSecret() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            Application.logging(isEnabled: true)
            exerciseEverythingThatPrints()
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        // The run reached its end and produced the messages the scan is about.
        #expect(output.contains("done"))
        #expect(output.contains("AppStateKit: created SecureState<Swift.Optional<Swift.String>> App.dbPassword"))
        #expect(output.contains("provided by a read-only source for secret \"dbPassword\""))
        #expect(output.contains("insecure permissions for secret \"Tests.greeting\""))
        #expect(output.contains("too large for secret \"Tests.greeting\""))
        #expect(output.contains("SecureState<Swift.Optional<Swift.String>> App.dbPassword = <redacted>"))
        #expect(output.contains("SecureState(Billing.apiKey) = <redacted>"))
        #expect(output.contains("error: missing for secret \"missing\""))
        #expect(output.contains("localized: insecure permissions for secret \"Tests.greeting\""))
        // The secret itself appears nowhere.
        #expect(!output.contains(secret))
        #expect(!output.contains("S3cr3t"))
    }

    @Test("Application.description shows a dependency by its type, so a configuration's password never appears")
    func dependencyShownByType() {
        #expect(Application.dependency(\.databaseSettings).password == "Pa55-in-config-e81d")
        let description = Application.description
        #expect(description.contains("Dependency<AppStateKitTests.RedactionDatabaseSettings> "))
        #expect(description.contains(" = instance of AppStateKitTests.RedactionDatabaseSettings"))
        #expect(!description.contains("Pa55-in-config-e81d"))
        #expect(!description.contains("db.internal"))
    }

    @Test("descriptions show <redacted> and the key")
    func descriptions() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/creds/dbPassword", text: "hunter2\n")
        useKeychain(testKeychain(files))
        let handle = Application.secureState(\.testPassword)
        #expect(handle.value == "hunter2")
        #expect(handle.description == "SecureState(dbPassword) = <redacted>")
        #expect(String(reflecting: handle) == "SecureState(dbPassword) = <redacted>")
        #expect(Application.description.contains("SecureState<Swift.Optional<Swift.String>> App.dbPassword = <redacted>"))
        #expect(!Application.description.contains("hunter2"))
        var dumped = ""
        dump(handle, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(dumped.contains("<redacted>"))
    }
}
