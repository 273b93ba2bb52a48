import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 42, item 1: damage anywhere in a store's log is found, kept aside and reported, and the
/// records after it are recovered; bytes are cut only when they are provably a torn tail.
@Suite("FileKeyValueStore: a damaged log", .isolatedApplication, .reportsAsDiagnostics)
struct LogCorruptionTests {
    static let directory = "/config/app"
    static let path = "/config/app/defaults.json"
    static let logPath = "/config/app/defaults.json.log"

    private func store(_ files: InMemoryFileSystem) -> FileKeyValueStore {
        FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files)
    }

    private func backups(_ files: InMemoryFileSystem) -> [String] {
        files.contentsOfDirectory(atPath: Self.directory).filter { $0.hasPrefix("defaults.json.log.corrupt-") }
    }

    /// A store holding a=1 in its file and b, c, d in three log records.
    private func fourKeys() throws -> InMemoryFileSystem {
        let files = InMemoryFileSystem()
        let writer = store(files)
        for (index, key) in ["a", "b", "c", "d"].enumerated() { try writer.writeObject(index + 1, forKey: key) }
        return files
    }

    @Test("one flipped bit in the length of the first record: the damage is reported, kept aside, and no later record is lost")
    func flippedLengthBit() throws {
        let files = try fourKeys()
        var log = try #require(files.contents(atPath: Self.logPath))
        log[StoreLog.headerLength] ^= 0x40
        files.createFile(atPath: Self.logPath, contents: log)

        let reader = store(files)
        // Before anything is written: every read says the store is damaged (none reads nil).
        for key in ["b", "c", "d"] {
            #expect(throws: PersistenceError.self, "key \(key)") { _ = try reader.readObject(forKey: key) }
        }
        let logs = try capturingLogs { try reader.writeObject(5, forKey: "e") }
        #expect(logs.count == 1)
        #expect(logs.first?.contains("corrupt") == true)
        let kept = backups(files)
        #expect(kept.count == 1)
        #expect(files.contents(atPath: "\(Self.directory)/\(kept.first ?? "")") == log, "every damaged byte is kept")

        let fresh = store(files)
        #expect(try fresh.readObject(forKey: "a") as? Int == 1)
        #expect(try fresh.readObject(forKey: "c") as? Int == 3, "the records after the damage are recovered")
        #expect(try fresh.readObject(forKey: "d") as? Int == 4)
        #expect(try fresh.readObject(forKey: "e") as? Int == 5)
        // The damaged record's key is reported, not silently absent or stale.
        #expect(throws: PersistenceError.self) { _ = try fresh.readObject(forKey: "b") }
        try fresh.writeObject(22, forKey: "b")
        #expect(try store(files).readObject(forKey: "b") as? Int == 22)
    }

    @Test("bytes past the last record that are not a prefix of one append are corruption: kept aside before anything is cut")
    func garbageTail() throws {
        let files = try fourKeys()
        let intact = try #require(files.contents(atPath: Self.logPath))
        let garbage = Data([0x05, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03])
        files.createFile(atPath: Self.logPath, contents: intact + garbage)
        #expect(throws: PersistenceError.self) { _ = try store(files).readObject(forKey: "d") }
        let logs = try capturingLogs { try store(files).writeObject(5, forKey: "e") }
        #expect(logs.count == 1)
        #expect(files.contents(atPath: "\(Self.directory)/\(backups(files).first ?? "")") == intact + garbage)
        #expect(try store(files).keys == ["a", "b", "c", "d", "e"])
    }

    @Test("a true torn tail (zeros, or a prefix of one append) is cut silently, with nothing kept aside")
    func tornTails() throws {
        let files = try fourKeys()
        let intact = try #require(files.contents(atPath: Self.logPath))
        let record = try StoreLog.record(["e": .value(.int(5))])
        var zeroed = record
        zeroed.replaceSubrange((record.count - 4)..<record.count, with: Data(count: 4))
        for tail in [record.prefix(3), record.prefix(StoreLog.frameLength + 3), record.dropLast(), Data(count: 40), zeroed] {
            files.createFile(atPath: Self.logPath, contents: intact + tail)
            let logs = try capturingLogs {
                #expect(try store(files).keys == ["a", "b", "c", "d"])
                try store(files).writeObject(6, forKey: "f")
                try store(files).writeObject(nil, forKey: "f")
            }
            #expect(logs.isEmpty, "tail of \(tail.count) bytes")
            #expect(backups(files).isEmpty)
            files.createFile(atPath: Self.logPath, contents: intact)
        }
    }

    @Test("a log an earlier version wrote (frame version 1) opens, and the first write folds it into the file and starts a version-2 log")
    func versionOneLog() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: Self.path, text: #"{"a": {"int": 1}}"#)
        var log = Data("ASKLOG1\n".utf8) + Data([1, 2, 3, 4, 5, 6, 7, 8])
        for (key, value) in [("b", 2), ("c", 3)] {
            let payload = Data(#"{"\#(key)":{"int":\#(value)}}"#.utf8)
            withUnsafeBytes(of: UInt32(payload.count).littleEndian) { log.append(contentsOf: $0) }
            let checksum = payload.withUnsafeBytes { StoreLog.checksum($0) }
            withUnsafeBytes(of: checksum.littleEndian) { log.append(contentsOf: $0) }
            log.append(payload)
        }
        files.createFile(atPath: Self.logPath, contents: log)
        #expect(try store(files).readObject(forKey: "c") as? Int == 3)
        try store(files).writeObject(4, forKey: "d")
        let written = try #require(files.contents(atPath: Self.logPath))
        #expect(StoreLog.version(ofHeader: written) == 2)
        let fresh = store(files)
        #expect(try fresh.keys == ["a", "b", "c", "d"])
        #expect(try fresh.readObject(forKey: "b") as? Int == 2)
    }

    @Test("a torn tail read on its own (from where the last read stopped) leaves the position where it was")
    func tornTailAlone() throws {
        let record = try StoreLog.record(["k": .value(.int(1))])
        let scan = StoreLog.scan(record.prefix(12), base: 40)
        #expect(scan.hasTornTail)
        #expect(scan.consumed == 40)
        #expect(scan.batches.isEmpty)
    }

    @Test("a version-2 record's checksum covers its length: a length changed to fit the file is damage, not a shorter record")
    func checksumCoversLength() throws {
        let record = try StoreLog.record(["k": .value(.string("value"))])
        var shortened = record
        shortened[0] -= 1
        let scan = StoreLog.scan(shortened + Data("}".utf8), base: 0)
        #expect(scan.corruption != nil)
        #expect(StoreLog.scan(record, base: 0).batches == [["k": .value(.string("value"))]])
    }
}
