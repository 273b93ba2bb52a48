import Foundation
import Testing
import AppStateKitTesting
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var surfacePort: StoredState<Int> { storedState(initial: 80, feature: "Server", id: "port") }
    var surfaceNotes: FileState<[String]> { fileState(initial: [], path: "/srv/app", filename: "notes.json", isBase64Encoded: false) }
}

/// The public error types share field names (`kind`, `key`, `path`, `detail`) and one description
/// format, `<kind> for <subject>: <detail>`, which names the kind and never a secret value.
@Suite("Error types share field names and a description format", .isolatedApplication, .reportsAsDiagnostics)
struct ErrorSurfaceTests {
    @Test("a StoredState's type mismatch names the key and the store's file in its own fields")
    func persistenceErrorOfAKey() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: "/srv/app/defaults.json", fileSystem: files)
        store.set("eighty", forKey: "Server/port")
        let override = Application.override(\.userDefaults, with: store)
        defer { override.cancel() }

        let error = try #require(throws: PersistenceError.self) { try Application.storedState(\.surfacePort).read() }
        #expect(error.kind == .typeMismatch)
        #expect(error.key == "Server/port")
        #expect(error.path == "/srv/app/defaults.json")
        #expect(error.detail == "stored String, expected Int")
        #expect(error.description == #"type mismatch for key "Server/port" in /srv/app/defaults.json: stored String, expected Int"#)
    }

    @Test("a FileState's corrupt file names the file as its path and no key")
    func persistenceErrorOfAFile() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/srv/app/notes.json", text: "")
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) { () throws in
            let error = try #require(throws: PersistenceError.self) { try Application.fileState(\.surfaceNotes).read() }
            #expect(error.kind == .corruptData)
            #expect(error.key == "")
            #expect(error.path == "/srv/app/notes.json")
            #expect(error.description == "corrupt data for /srv/app/notes.json: the file is empty")
        }
    }

    @Test("PersistenceError's initialisers fill key, path and subject alike")
    func persistenceErrorInitialisers() {
        let both = PersistenceError(.diskFull, key: "App/level", path: "/data/defaults.json", detail: "write failed (ENOSPC)")
        #expect(both.subject == #"key "App/level" in /data/defaults.json"#)
        #expect(both.description == #"disk full for key "App/level" in /data/defaults.json: write failed (ENOSPC)"#)
        let keyOnly = PersistenceError(.encodingFailed, key: "App/level", path: nil, detail: "no JSON form")
        #expect(keyOnly.description == #"cannot encode value for key "App/level": no JSON form"#)
        #expect(keyOnly.path == nil)
        let io = PersistenceError(.ioFailure, errno: EIO, key: "", path: "/data/x.json", detail: "read failed (EIO)")
        #expect(io.description == "I/O error EIO for /data/x.json: read failed (EIO)")
        let bySubject = PersistenceError(.permissionDenied, subject: "/data/x.json", detail: "stat failed (EACCES)")
        #expect(bySubject.path == "/data/x.json")
        #expect(bySubject.key == "")
        #expect(PersistenceError(.permissionDenied, subject: "FileState in /data", detail: "d").path == nil)
    }

    @Test("SecureStateError: the kind, the key, the source's path, never the value")
    func secureStateError() throws {
        let inFile = SecureStateError(.insecurePermissions, key: "apiToken", source: "the secret store file /home/me/.config/todo/secrets/apiToken", detail: "mode 0644 lets other users read it")
        #expect(inFile.kind == .insecurePermissions)
        #expect(inFile.key == "apiToken")
        #expect(inFile.path == "/home/me/.config/todo/secrets/apiToken")
        #expect(inFile.description == #"insecure permissions for secret "apiToken" in the secret store file /home/me/.config/todo/secrets/apiToken: mode 0644 lets other users read it"#)
        let credential = SecureStateError(.unreadable, key: "db", source: "the systemd credential file /run/credentials/app.service/db", detail: "open failed (EIO)")
        #expect(credential.path == "/run/credentials/app.service/db")
        let variable = SecureStateError(.invalidUTF8, key: "db", source: "the environment variable DB", detail: "not UTF-8")
        #expect(variable.path == nil)

        // Through the keychain: a refused write names the key and where the value comes from.
        let keychain = Keychain(sources: [.environment(prefix: ""), .fileStore(directory: "/secrets")], environment: ["API_TOKEN": "s3cret-value"], fileManager: InMemoryFileSystem())
        let refused = try #require(throws: SecureStateError.self) { try keychain.write("other-value", forKey: "apiToken") }
        #expect(refused.kind == .providedByReadOnlySource)
        #expect(refused.key == "apiToken")
        #expect(refused.path == nil)
        #expect(refused.description.hasPrefix(#"provided by a read-only source for secret "apiToken" in the environment variable API_TOKEN: "#))
        #expect(!refused.description.contains("s3cret-value") && !refused.description.contains("other-value"))
    }

    @Test("SyncStoreError: the kind, the key, the detail")
    func syncStoreError() {
        let error = SyncStoreError(.valueTooLarge, key: "App/flags", detail: "the value's JSON has 2000000 bytes; the limit is 1048576")
        #expect(error.description == #"value too large for sync key "App/flags": the value's JSON has 2000000 bytes; the limit is 1048576"#)
        #expect(error.kind == .valueTooLarge && error.key == "App/flags")
    }

    @Test("SyncFlushError has a kind and a detail, and its description starts with the kind")
    func syncFlushError() {
        let pending = SyncFlushError(keys: ["App/a", "App/b"], timedOut: true)
        #expect(pending.kind == .timedOut)
        #expect(pending.description == #"timed out for SyncState writes of "App/a", "App/b": not committed within the timeout; they are kept and retried"#)
        let failed = SyncFlushError(keys: ["App/a"], timedOut: false)
        #expect(failed.kind == .failed)
        #expect(failed.detail == "not committed, and dropped (see the logged errors)")
        #expect(failed.description == #"failed for SyncState writes of "App/a": not committed, and dropped (see the logged errors)"#)
    }
}
