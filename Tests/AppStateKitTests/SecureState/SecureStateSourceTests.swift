import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

@Suite("SecureState: where values come from, in order; read-only sources win", .isolatedApplication)
struct SecureStateSourceTests {
    @Test("credentials directory, then secrets directory, then environment, then the writable store")
    func precedence() throws {
        let files = InMemoryFileSystem()
        var environment = ["CREDENTIALS_DIRECTORY": "/creds", "DB_PASSWORD": "from-environment"]
        files.createFile(atPath: "\(storeDirectory)/dbPassword", text: "from-store\n")
        useKeychain(testKeychain(files, environment: environment))
        #expect(Application.secureState(\.testPassword).value == "from-environment")
        #expect(try Application.secureState(\.testPassword).origin() == "the environment variable DB_PASSWORD")

        files.createFile(atPath: "/run/secrets/dbPassword", text: "from-secrets\n")
        #expect(Application.secureState(\.testPassword).value == "from-secrets")
        #expect(try Application.secureState(\.testPassword).origin() == "the secret file /run/secrets/dbPassword")

        files.createFile(atPath: "/creds/dbPassword", text: "from-credentials\n")
        #expect(Application.secureState(\.testPassword).value == "from-credentials")
        #expect(try Application.secureState(\.testPassword).origin() == "the systemd credential file /creds/dbPassword")

        // Without the variable and the two directories' files, the store provides it.
        environment["DB_PASSWORD"] = nil
        let storeOnly = InMemoryFileSystem()
        storeOnly.createFile(atPath: "\(storeDirectory)/dbPassword", text: "from-store\n")
        useKeychain(testKeychain(storeOnly, environment: environment))
        #expect(Application.secureState(\.testPassword).value == "from-store")
        #expect(try Application.secureState(\.testPassword).origin() == "the secret store file \(storeDirectory)/dbPassword")
    }

    @Test("a secret's file is named by its id for feature App and by <feature>.<id> otherwise")
    func fileNames() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/creds/dbPassword", text: "db\n")
        files.createFile(atPath: "/creds/Billing.apiKey", text: "billing\n")
        files.createFile(atPath: "/creds/apiKey", text: "wrong feature\n")
        useKeychain(testKeychain(files))
        #expect(Application.secureState(\.testPassword).key == "dbPassword")
        #expect(Application.secureState(\.billingKey).key == "Billing.apiKey")
        #expect(Application.secureState(\.testPassword).value == "db")
        #expect(Application.secureState(\.billingKey).value == "billing")
    }

    @Test("without $CREDENTIALS_DIRECTORY the credentials source is skipped; an explicit directory is used")
    func credentialsDirectoryConfiguration() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/creds/dbPassword", text: "credential\n")
        useKeychain(testKeychain(files, environment: [:]))
        #expect(Application.secureState(\.testPassword).value == nil)
        useKeychain(Keychain(sources: [.credentialsDirectory("/creds")], environment: [:], fileManager: files))
        #expect(Application.secureState(\.testPassword).value == "credential")
    }

    @Test("the secrets directory is configurable")
    func secretsDirectoryConfiguration() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/etc/app/secrets/dbPassword", text: "mounted\n")
        files.createFile(atPath: "/run/secrets/dbPassword", text: "default\n")
        useKeychain(Keychain(sources: [.secretsDirectory("/etc/app/secrets")], environment: [:], fileManager: files))
        #expect(Application.secureState(\.testPassword).value == "mounted")
    }

    @Test("environment variables: upper snake case of the key, after an optional prefix", arguments: [
        ("dbPassword", "", "DB_PASSWORD"),
        ("Billing.apiKey", "", "BILLING_API_KEY"),
        ("api-token", "", "API_TOKEN"),
        ("APIToken", "", "APITOKEN"),
        ("token2fa", "", "TOKEN2FA"),
        ("apiToken", "TODO_", "TODO_API_TOKEN"),
    ])
    func environmentNames(key: String, prefix: String, variable: String) throws {
        #expect(Keychain.environmentVariableName(forKey: key, prefix: prefix) == variable)
        let keychain = Keychain(sources: [.environment(prefix: prefix)], environment: [variable: "value of \(variable)"], fileManager: InMemoryFileSystem())
        #expect(try keychain.read(key) == "value of \(variable)")
        #expect(try keychain.origin(of: key) == "the environment variable \(variable)")
    }

    @Test("the writable store is asked after every read-only source, whatever the order given")
    func writableStoreLast() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "\(storeDirectory)/dbPassword", text: "stored\n")
        files.createFile(atPath: "/run/secrets/dbPassword", text: "mounted\n")
        let keychain = Keychain(sources: [.fileStore(directory: storeDirectory), .secretsDirectory()], environment: [:], fileManager: files)
        #expect(try keychain.read("dbPassword") == "mounted")
    }

    @Test("writing or removing a key a read-only source provides is refused with an error naming it")
    func writeRefused() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/creds/dbPassword", text: "provided\n")
        useKeychain(testKeychain(files, environment: ["CREDENTIALS_DIRECTORY": "/creds", "BILLING_API_KEY": "env"]))
        let password = Application.secureState(\.testPassword)
        let error = #expect(throws: SecureStateError.self) { try password.write("other") }
        #expect(error?.kind == .providedByReadOnlySource)
        #expect(error?.description == """
            provided by a read-only source for secret "dbPassword" in the systemd credential file /creds/dbPassword: \
            the value there is what every read returns, so it can't be written in the keychain's writable store; change it where it is provided
            """)
        #expect(!files.itemExists(atPath: "\(storeDirectory)/dbPassword"))
        #expect(password.value == "provided")

        let removal = #expect(throws: SecureStateError.self) { try Application.secureState(\.billingKey).write(nil) }
        #expect(removal?.kind == .providedByReadOnlySource)
        #expect(removal?.source == "the environment variable BILLING_API_KEY")

        // The non-throwing setter reports the refusal and keeps the provided value.
        let messages = capturingLogs {
            var handle = Application.secureState(\.testPassword)
            handle.value = "other"
        }
        #expect(messages == ["AppStateKit: SecureState App.dbPassword: \(error!)"])
        #expect(password.value == "provided")
    }

    @Test("a value written goes to the writable store and is read back; nil removes it; reset returns the initial value")
    func writeAndRemove() throws {
        let files = InMemoryFileSystem()
        useKeychain(testKeychain(files))
        var greeting = Application.secureState(\.greetingToken)
        #expect(greeting.value == "anonymous")
        greeting.value = "hello\n"
        #expect(files.text(atPath: "\(storeDirectory)/Tests.greeting") == "hello\n\n")
        #expect(greeting.value == "hello\n")
        Application.reset(secureState: \.greetingToken)
        #expect(!files.itemExists(atPath: "\(storeDirectory)/Tests.greeting"))
        #expect(greeting.value == "anonymous")
        try greeting.write("again")
        greeting.value = nil
        #expect(greeting.value == "anonymous")
    }

    @Test("a keychain without a writable source refuses writes")
    func noWritableSource() throws {
        let keychain = Keychain(sources: [.secretsDirectory()], environment: [:], fileManager: InMemoryFileSystem())
        let error = #expect(throws: SecureStateError.self) { try keychain.write("x", forKey: "token") }
        #expect(error?.description == "no writable source for secret \"token\": the keychain's sources (.secretsDirectory(\"/run/secrets\")) are all read-only")
    }

    @Test("keys that can't name a file are refused", arguments: ["", ".hidden", "a/b", "nul\u{0}"] as [PrintableArgument])
    func invalidKeys(key: PrintableArgument) throws {
        let keychain = Keychain(initialValues: [:])
        let error = #expect(throws: SecureStateError.self) { try keychain.read(key.value) }
        #expect(error?.kind == .invalidKey)
    }
}
