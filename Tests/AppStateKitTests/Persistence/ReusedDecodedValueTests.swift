import Foundation
import AppStateKitTesting
import Synchronization
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// A value that counts how often it is decoded, so a test can tell a read that reused the value
/// an earlier read decoded from one that decoded again. Each test uses its own `tag`.
private struct Counted: Codable, Equatable, Sendable {
    static let decodes = Locked<[String: Int]>([:])

    var tag: String
    var number: Int

    init(tag: String, number: Int) {
        self.tag = tag
        self.number = number
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tag = try container.decode(String.self, forKey: .tag)
        number = try container.decode(Int.self, forKey: .number)
        Self.decodes.withLock { $0[tag, default: 0] += 1 }
    }

    static func decodeCount(_ tag: String) -> Int {
        decodes.withLock { $0[tag, default: 0] }
    }
}

/// Issue 13, item 1: a StoredState read from a `FileKeyValueStore`, and a FileState read, return
/// the value an earlier read decoded while nothing changed — and decode again after any write
/// this process or another made.
@Suite("Persisted reads reuse the decoded value until something changes", .isolatedApplication, .reportsAsDiagnosticsInEveryApplication)
struct ReusedDecodedValueTests {
    static let path = "/config/app/defaults.json"

    @Test("StoredState: a read reuses the decoded value; another instance's write (another process) is decoded by the next read")
    func storedStateReusesUntilAnotherProcessWrites() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: Self.path, fileSystem: files)
        let otherProcess = FileKeyValueStore(path: Self.path, fileSystem: files)
        let application = Application()
        let handle = application.storedState(initial: Counted(tag: "other", number: 0), feature: "Reuse", id: "other", store: store)
        try otherProcess.writeObject(try JSONEncoder().encode(Counted(tag: "other", number: 1)), forKey: "Reuse/other")

        #expect(handle.value.number == 1)
        let decoded = Counted.decodeCount("other")
        files.fail(.stat, at: Self.path, with: EIO)
        // Any stat would now throw and any decode would count: these reads use the kept value.
        for _ in 0..<20 { #expect(try handle.read().number == 1) }
        #expect(Counted.decodeCount("other") == decoded)

        files.removeFailures()
        try otherProcess.writeObject(try JSONEncoder().encode(Counted(tag: "other", number: 2)), forKey: "Reuse/other")
        #expect(handle.value.number == 2)
        #expect(Counted.decodeCount("other") == decoded + 1)
    }

    @Test("StoredState: this process's writes — another handle, the store itself, reset — are seen by the next read")
    func storedStateSeesThisProcessesWrites() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: Self.path, fileSystem: files)
        let application = Application()
        let reader = application.storedState(initial: 0, feature: "Reuse", id: "own", store: store)
        var writer = application.storedState(initial: 0, feature: "Reuse", id: "own", store: store)
        #expect(reader.value == 0)
        writer.value = 5
        #expect(reader.value == 5)
        #expect(reader.value == 5)
        try store.writeObject(7, forKey: "Reuse/own")
        #expect(reader.value == 7)
        store.set(8, forKey: "Reuse/own")
        #expect(reader.value == 8)
        writer.reset()
        #expect(reader.value == 0)
        writer.value += 3
        #expect(reader.value == 3)
        try writer.update { $0 *= 2 }
        #expect(reader.value == 6)
    }

    @Test("StoredState: a promoted store is read at once, not the value kept from the previous one")
    func storedStateFollowsPromotion() throws {
        let files = InMemoryFileSystem()
        let first = FileKeyValueStore(path: "/a/defaults.json", fileSystem: files)
        let second = FileKeyValueStore(path: "/b/defaults.json", fileSystem: files)
        try first.writeObject(1, forKey: "Reuse/promoted")
        try second.writeObject(2, forKey: "Reuse/promoted")
        Application.promote(\.userDefaults, with: first)
        let handle = Application.current.storedState(initial: 0, feature: "Reuse", id: "promoted")
        #expect(handle.value == 1)
        #expect(handle.value == 1)
        Application.promote(\.userDefaults, with: second)
        #expect(handle.value == 2)
    }

    @Test("StoredState: a stored value that can't be decoded fails every read and is never kept")
    func storedStateDoesNotKeepFailures() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: Self.path, fileSystem: files)
        let application = Application()
        let handle = application.storedState(initial: 4, feature: "Reuse", id: "mismatch", store: store)
        try store.writeObject("text", forKey: "Reuse/mismatch")
        #expect(throws: PersistenceError.self) { try handle.read() }
        #expect(handle.value == 4)
        #expect(throws: PersistenceError.self) { try handle.read() }
        try store.writeObject(9, forKey: "Reuse/mismatch")
        #expect(try handle.read() == 9)
    }

    @Test("StoredState: reading a store whose directory doesn't exist creates the directory and the lock file, not the store", .realFileSystem)
    func unwrittenStoreDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let storeDirectory = directory.file("app")
        let path = (storeDirectory as NSString).appendingPathComponent("defaults.json")
        let store = FileKeyValueStore(path: path, durability: .processCrashSafe)
        let application = Application()
        let handle = application.storedState(initial: 0, feature: "Reuse", id: "unwritten", store: store)
        #expect(handle.value == 0)
        #expect(try TemporaryDirectory.permissions(of: storeDirectory) == 0o700)
        #expect(FileManager.default.fileExists(atPath: path + ".lock"))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(handle.value == 0)
        // Another process's first write: the next read sees it.
        try FileKeyValueStore(path: path, durability: .processCrashSafe).writeObject(3, forKey: "Reuse/unwritten")
        #expect(handle.value == 3)
    }

    @Test("StoredState: a directory that can't be created leaves reads checking the file", .realFileSystem)
    func uncreatableStoreDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // A file where the store's directory would go: the directory can't be made.
        #expect(FileManager.default.createFile(atPath: directory.file("blocked"), contents: Data()))
        let store = FileKeyValueStore(path: directory.file("blocked/defaults.json"))
        let application = Application()
        let handle = application.storedState(initial: 6, feature: "Reuse", id: "blocked", store: store)
        #expect(handle.value == 6)
        #expect(handle.value == 6)
    }

    @Test("FileState: a read reuses the decoded value; a counted replacement (another process) is decoded by the next read", .realFileSystem)
    func fileStateReusesUntilTheCounterMoves() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let application = Application()
        var handle = application.fileState(initial: Counted(tag: "file", number: 0), path: directory.path, filename: "counted.json", isBase64Encoded: false)
        handle.value = Counted(tag: "file", number: 1)
        #expect(handle.value.number == 1)
        let decoded = Counted.decodeCount("file")
        for _ in 0..<20 { #expect(try handle.read().number == 1) }
        #expect(Counted.decodeCount("file") == decoded)

        // Another process's write: a new file renamed into place, then counted.
        try JSONEncoder().encode(Counted(tag: "file", number: 2)).write(to: URL(fileURLWithPath: directory.file("counted.json")), options: .atomic)
        AtomicFileWriter.announceChange(of: directory.file("counted.json"))
        #expect(handle.value.number == 2)
        #expect(Counted.decodeCount("file") == decoded + 1)
    }

    @Test("FileState: this process's writes through another handle and reset are seen by the next read", .realFileSystem)
    func fileStateSeesThisProcessesWrites() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let application = Application()
        let reader = application.fileState(initial: 0, path: directory.path, filename: "own.json")
        var writer = application.fileState(initial: 0, path: directory.path, filename: "own.json")
        #expect(reader.value == 0)
        #expect(reader.value == 0)
        writer.value = 5
        #expect(reader.value == 5)
        writer.value += 1
        #expect(reader.value == 6)
        writer.reset()
        #expect(reader.value == 0)
        try writer.update { $0 = 9 }
        #expect(reader.value == 9)
    }
}
