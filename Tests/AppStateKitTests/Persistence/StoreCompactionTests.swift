import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 46: `FileKeyValueStore.compact()`, which `appstatekit kv compact` runs.
@Suite("FileKeyValueStore: compaction on request", .isolatedApplication, .reportsAsDiagnostics)
struct StoreCompactionTests {
    static let path = "/config/app/defaults.json"
    static let logPath = "/config/app/defaults.json.log"

    @Test("a log's records are folded into the file, an empty log is started, and every key reads back, also for another store")
    func foldsTheLog() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files)
        for index in 0..<20 { try store.writeObject(index, forKey: "k\(index)") }
        let before = try #require(files.contents(atPath: Self.logPath)).count
        #expect(before > StoreLog.headerLength)

        #expect(try store.compact() == .compacted(logBytes: before))
        #expect(try #require(files.contents(atPath: Self.logPath)).count == StoreLog.headerLength)
        // The file alone holds every key now: a reader that ignores the log sees them.
        let file = try #require(files.contents(atPath: Self.path))
        let object = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        #expect(object.count == 20)
        let other = FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files)
        for index in 0..<20 { #expect(try other.readObject(forKey: "k\(index)") as? Int == index) }
        #expect(try store.readObject(forKey: "k7") as? Int == 7)
        try store.writeObject(99, forKey: "k7")
        #expect(try other.readObject(forKey: "k7") as? Int == 99, "writes after a compaction are seen by other stores")
    }

    @Test("a single-file store removes a log it finds; without one there is nothing to compact")
    func singleFile() throws {
        let files = InMemoryFileSystem()
        let logWriter = FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files)
        try logWriter.writeObject("x", forKey: "a")
        let store = FileKeyValueStore(path: Self.path, layout: .singleFile, fileSystem: files)
        #expect(try store.compact() != .nothingToCompact)
        #expect(files.contents(atPath: Self.logPath) == nil)
        #expect(try store.compact() == .nothingToCompact)
        #expect(try store.readObject(forKey: "a") as? String == "x")
    }

    @Test("a file that is not JSON is not compacted over: corruptData naming the path, the bytes untouched")
    func corruptFileRefused() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files)
        try store.writeObject(1, forKey: "a")
        files.createFile(atPath: Self.path, contents: Data("{not json".utf8))
        #expect {
            try store.compact()
        } throws: { error in
            (error as? PersistenceError)?.kind == .corruptData && (error as? PersistenceError)?.subject == Self.path
        }
        #expect(files.contents(atPath: Self.path) == Data("{not json".utf8))
    }
}
