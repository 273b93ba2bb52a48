import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

@Suite("SecureState input: one trailing newline trimmed, size-limited, clear errors naming the source", .isolatedApplication)
struct SecureStateBadInputTests {
    @Test("exactly one trailing newline is removed", arguments: [
        ("secret\n", "secret"), ("secret\r\n", "secret"), ("secret\n\n", "secret\n"), ("secret", "secret"),
        (" spaced secret \n", " spaced secret "), ("\n", ""),
    ] as [(PrintableArgument, PrintableArgument)])
    func trimming(contents: PrintableArgument, expected: PrintableArgument) throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/run/secrets/token", text: contents.value)
        #expect(try testKeychain(files).read("token") == expected.value)
    }

    @Test("a value over the size limit is refused, reading and writing")
    func sizeLimit() throws {
        let files = InMemoryFileSystem()
        let keychain = testKeychain(files, environment: ["CREDENTIALS_DIRECTORY": "/creds", "BIG": String(repeating: "e", count: 17)], sizeLimit: 16)
        files.createFile(atPath: "/run/secrets/token", text: String(repeating: "x", count: 17))
        let error = #expect(throws: SecureStateError.self) { try keychain.read("token") }
        #expect(error?.description == "too large for secret \"token\" in the secret file /run/secrets/token: it holds 17 bytes, more than the keychain's limit of 16")
        let variable = #expect(throws: SecureStateError.self) { try keychain.read("big") }
        #expect(variable?.source == "the environment variable BIG")
        let write = #expect(throws: SecureStateError.self) { try keychain.write(String(repeating: "y", count: 17), forKey: "other") }
        #expect(write?.kind == .tooLarge)
        files.createFile(atPath: "/run/secrets/small", text: String(repeating: "x", count: 16))
        #expect(try keychain.read("small")?.count == 16)
    }

    @Test("a directory where the file should be is an error naming the source, not nil")
    func directoryInsteadOfFile() throws {
        let files = InMemoryFileSystem()
        files.createDirectory(atPath: "/creds/dbPassword")
        useKeychain(testKeychain(files))
        let error = #expect(throws: SecureStateError.self) { try Application.secureState(\.testPassword).read() }
        #expect(error?.description == "a directory instead of a file for secret \"dbPassword\" in the systemd credential file /creds/dbPassword: found a directory where the file holding the secret should be")
        // The non-throwing value reports it once and reads the initial value.
        let messages = capturingLogs {
            #expect(Application.secureState(\.testPassword).value == nil)
            #expect(Application.secureState(\.testPassword).value == nil)
        }
        #expect(messages == ["AppStateKit: SecureState App.dbPassword: \(error!)"])
    }

    @Test("an unreadable file is an error naming the source and the errno")
    func unreadable() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/run/secrets/dbPassword", text: "secret\n")
        files.fail(.read, at: "/run/secrets/dbPassword", with: EACCES)
        let error = #expect(throws: SecureStateError.self) { try testKeychain(files).read("dbPassword") }
        #expect(error?.description == "unreadable for secret \"dbPassword\" in the secret file /run/secrets/dbPassword: read failed (EACCES)")
    }

    @Test("invalid UTF-8 is an error naming the source")
    func invalidUTF8() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/run/secrets/dbPassword", contents: Data([0x70, 0xFF, 0xFE, 0x0A]))
        let error = #expect(throws: SecureStateError.self) { try testKeychain(files).read("dbPassword") }
        #expect(error?.description == "invalid UTF-8 for secret \"dbPassword\" in the secret file /run/secrets/dbPassword: the file's 4 bytes are not valid UTF-8 text")
    }

    @Test("a read-only source that can't be read refuses writes of its key too")
    func unreadableSourceRefusesWrites() throws {
        let files = InMemoryFileSystem()
        files.createDirectory(atPath: "/run/secrets/dbPassword")
        let error = #expect(throws: SecureStateError.self) { try testKeychain(files).write("x", forKey: "dbPassword") }
        #expect(error?.kind == .isDirectory)
        #expect(!files.itemExists(atPath: "\(storeDirectory)/dbPassword"))
    }
}
