import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 11, item 5: a write that can't read the current store fails and changes nothing —
/// never a store rebuilt from an empty cache holding only the new key.
@Suite("FileKeyValueStore: a write that can't read the store changes nothing", .isolatedApplication, .reportsAsDiagnostics)
struct FailedReloadTests {
    static let path = "/config/app/defaults.json"

    /// A store this process cached, then another process added a key.
    private func storeChangedElsewhere(_ files: InMemoryFileSystem) throws -> FileKeyValueStore {
        let store = FileKeyValueStore(path: Self.path, fileSystem: files)
        try store.writeObject(1, forKey: "a")
        #expect(store.object(forKey: "a") as? Int == 1)
        try FileKeyValueStore(path: Self.path, fileSystem: files).writeObject(2, forKey: "b")  // the other process
        return store
    }

    @Test("stat fails while reloading: the write throws and the file keeps both keys", arguments: [EIO, EACCES])
    func statFails(code: Int32) throws {
        let files = InMemoryFileSystem()
        let store = try storeChangedElsewhere(files)
        let before = try #require(files.contents(atPath: Self.path))
        files.fail(.stat, at: Self.path, with: code, times: 1)

        #expect(throws: PersistenceError.system(code, subject: "key \"c\" in \(Self.path)", operation: "stat")) {
            try store.writeObject(3, forKey: "c")
        }
        #expect(files.contents(atPath: Self.path) == before)
        #expect(try store.keys == ["a", "b"])
        try store.writeObject(3, forKey: "c")
        #expect(try FileKeyValueStore(path: Self.path, fileSystem: files).keys == ["a", "b", "c"])
    }

    @Test("reading the changed file fails: the write throws and the file is unchanged")
    func readFails() throws {
        let files = InMemoryFileSystem()
        let store = try storeChangedElsewhere(files)
        let before = try #require(files.contents(atPath: Self.path))
        files.fail(.read, at: Self.path, with: EIO)

        #expect(throws: PersistenceError(.ioFailure, errno: EIO, subject: "key \"c\" in \(Self.path)", detail: "read failed (EIO)")) {
            try store.writeObject(3, forKey: "c")
        }
        store.set(4, forKey: "d")  // the non-throwing form fails the same way
        #expect(files.contents(atPath: Self.path) == before)
    }
}
