import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

@Suite("SecureState's writable store: 0600 files in a 0700 directory, atomic, durable, refused when others can read", .isolatedApplication)
struct SecureStateFileStoreTests {
    @Test("a write creates the directory 0700 and the file 0600, holding the value and one newline")
    func modes() throws {
        let files = InMemoryFileSystem()
        let keychain = testKeychain(files, environment: [:])
        try keychain.write("t0k3n", forKey: "apiToken")
        #expect(files.permissions(atPath: storeDirectory) == 0o700)
        #expect(files.permissions(atPath: "/home/me/.config/app") == 0o700)
        #expect(files.permissions(atPath: "\(storeDirectory)/apiToken") == 0o600)
        #expect(files.text(atPath: "\(storeDirectory)/apiToken") == "t0k3n\n")
        #expect(try keychain.read("apiToken") == "t0k3n")
    }

    @Test("the real file system: 0600 file in a 0700 directory")
    func realModes() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.file("tool/secrets")
        let keychain = Keychain(sources: [.fileStore(directory: store)], environment: [:])
        try keychain.write("t0k3n", forKey: "apiToken")
        let fileMode = try FileManager.default.attributesOfItem(atPath: store + "/apiToken")[.posixPermissions] as? Int
        let directoryMode = try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(directoryMode == 0o700)
        #expect(try keychain.read("apiToken") == "t0k3n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store) == ["apiToken"])
    }

    @Test("a file other users can read is refused with an error naming the mode; a private one is read")
    func insecureFileRefused() throws {
        let files = InMemoryFileSystem()
        let keychain = testKeychain(files, environment: [:])
        try keychain.write("t0k3n", forKey: "apiToken")
        files.setPermissions(0o644, atPath: "\(storeDirectory)/apiToken")
        let error = #expect(throws: SecureStateError.self) { try keychain.read("apiToken") }
        #expect(error?.kind == .insecurePermissions)
        #expect(error?.description == """
            insecure permissions for secret "apiToken" in the secret store file \(storeDirectory)/apiToken: \
            mode 0644 lets other users access it, so it is not used; run chmod 600 \(storeDirectory)/apiToken \
            if nobody else could have read it, otherwise replace the secret
            """)
        files.setPermissions(0o640, atPath: "\(storeDirectory)/apiToken")
        #expect(throws: SecureStateError.self) { try keychain.read("apiToken") }
        files.setPermissions(0o400, atPath: "\(storeDirectory)/apiToken")
        #expect(try keychain.read("apiToken") == "t0k3n")
    }

    @Test("a store directory other users can access is refused; nothing is written")
    func insecureDirectoryRefused() throws {
        let files = InMemoryFileSystem()
        files.createDirectory(atPath: storeDirectory)
        files.setPermissions(0o755, atPath: storeDirectory)
        let keychain = testKeychain(files, environment: [:])
        let error = #expect(throws: SecureStateError.self) { try keychain.write("t0k3n", forKey: "apiToken") }
        #expect(error?.kind == .insecurePermissions)
        #expect(error?.source == "the secret store directory \(storeDirectory)")
        #expect(files.contentsOfDirectory(atPath: storeDirectory).isEmpty)
    }

    @Test("writes are atomic: a failed write keeps the old secret and leaves no temporary file")
    func atomic() throws {
        let files = InMemoryFileSystem()
        let keychain = testKeychain(files, environment: [:])
        try keychain.write("old", forKey: "apiToken")
        files.fail(.rename, at: "\(storeDirectory)/apiToken", with: EIO)
        let error = #expect(throws: SecureStateError.self) { try keychain.write("new", forKey: "apiToken") }
        #expect(error?.kind == .writeFailed)
        #expect(error?.detail == "rename failed (EIO)")
        #expect(try keychain.read("apiToken") == "old")
        #expect(files.contentsOfDirectory(atPath: storeDirectory) == ["apiToken"])
    }

    @Test("writes are durable: the file and the directory are fsynced, and a failed fsync fails the write")
    func durable() throws {
        let files = InMemoryFileSystem()
        let keychain = testKeychain(files, environment: [:])
        try keychain.write("old", forKey: "apiToken")
        files.fail(.sync, at: "\(storeDirectory)/apiToken", with: EIO, times: 1)
        #expect(throws: SecureStateError.self) { try keychain.write("new", forKey: "apiToken") }
        #expect(try keychain.read("apiToken") == "old")
        files.fail(.syncDirectory, at: storeDirectory, with: EIO, times: 1)
        let error = #expect(throws: SecureStateError.self) { try keychain.write("new", forKey: "apiToken") }
        #expect(error?.detail == "fsync directory failed (EIO)")
    }

    @Test("a full disk is reported naming the key and the file")
    func diskFull() throws {
        let files = InMemoryFileSystem()
        useKeychain(testKeychain(files, environment: [:]))
        files.fail(.write, at: storeDirectory, with: ENOSPC)
        let messages = capturingLogs {
            var token = Application.secureState(\.testPassword)
            token.value = "t0k3n"
        }
        #expect(messages == ["AppStateKit: SecureState App.dbPassword: write failed for secret \"dbPassword\" in the secret store file \(storeDirectory)/dbPassword: write failed (ENOSPC)"])
        #expect(Application.secureState(\.testPassword).value == nil)
    }
}
