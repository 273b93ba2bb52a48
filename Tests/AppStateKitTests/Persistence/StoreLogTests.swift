import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 13, items 2 and 3: a store's writes append one record per batch to the log beside its
/// file, so their cost doesn't grow with the store; the log is compacted into the file.
@Suite("FileKeyValueStore: the append-only log", .isolatedApplication, .reportsAsDiagnostics)
struct StoreLogTests {
    static let path = "/config/app/defaults.json"
    static let logPath = "/config/app/defaults.json.log"

    private func store(_ files: InMemoryFileSystem, compactionThreshold: Int = FileKeyValueStore.defaultCompactionThreshold) -> FileKeyValueStore {
        FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files, compactionThreshold: compactionThreshold)
    }

    /// The records of `log` (after its header), or an issue when it doesn't scan cleanly.
    private func records(_ log: Data?) throws -> [StoreLog.Batch] {
        let log = try #require(log)
        #expect(StoreLog.epoch(ofHeader: log) != nil)
        let scan = StoreLog.scan(log.dropFirst(StoreLog.headerLength), base: StoreLog.headerLength)
        #expect(scan.corruption == nil)
        #expect(!scan.hasTornTail)
        #expect(scan.consumed == log.count)
        return scan.batches
    }

    @Test("the first write replaces the file and creates an empty log; later writes append one record each and leave the file alone")
    func writesAppend() throws {
        let files = InMemoryFileSystem()
        let store = store(files)
        try store.writeObject(1, forKey: "a")
        let file = try #require(files.contents(atPath: Self.path))
        #expect(try records(files.contents(atPath: Self.logPath)).isEmpty)
        try store.writeObject(2, forKey: "b")
        try store.writeObject(nil, forKey: "a")
        #expect(files.contents(atPath: Self.path) == file)
        let batches = try records(files.contents(atPath: Self.logPath))
        let removal: StoreEntry? = nil
        #expect(batches == [["b": .value(.int(2))], ["a": removal]])
        let fresh = FileKeyValueStore(path: Self.path, fileSystem: files)  // the default layout reads it too
        #expect(try fresh.keys == ["b"])
        #expect(try fresh.readObject(forKey: "b") as? Int == 2)
    }

    @Test("a file an earlier version wrote is read, and the first write keeps every key of it")
    func oldFormat() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: Self.path, text: #"{"App/port": {"int": 8080}, "App/name": {"string": "old"}}"#)
        let store = store(files)
        #expect(try store.readObject(forKey: "App/port") as? Int == 8080)
        #expect(!files.itemExists(atPath: Self.logPath), "reading never writes")
        try store.writeObject(9090, forKey: "App/port")
        #expect(files.itemExists(atPath: Self.logPath))
        let fresh = FileKeyValueStore(path: Self.path, fileSystem: files)
        #expect(try fresh.readObject(forKey: "App/port") as? Int == 9090)
        #expect(try fresh.readObject(forKey: "App/name") as? String == "old")
        // The file itself is still in the old format, holding every key.
        let file = try #require(files.contents(atPath: Self.path))
        let json = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        #expect(Set(json.keys) == ["App/port", "App/name"])
    }

    @Test("a torn tail (an append a crash cut short) is ignored by readers and cut off by the next write")
    func tornTail() throws {
        let files = InMemoryFileSystem()
        try store(files).writeObject(1, forKey: "a")
        try store(files).writeObject(2, forKey: "b")
        let intact = try #require(files.contents(atPath: Self.logPath))
        let torn = try StoreLog.record(["c": .value(.int(3))])
        for cut in [3, StoreLog.frameLength + 2, torn.count - 1] {
            files.createFile(atPath: Self.logPath, contents: intact + torn.prefix(cut))
            let reader = store(files)
            #expect(try reader.keys == ["a", "b"], "cut at \(cut)")
            #expect(try reader.readObject(forKey: "b") as? Int == 2)
        }
        // The last record complete in length but with bytes the crash never wrote (zeros).
        var garbled = torn
        garbled.replaceSubrange((garbled.count - 3)..<garbled.count, with: [0, 0, 0])
        files.createFile(atPath: Self.logPath, contents: intact + garbled)
        let logs = try capturingLogs {
            #expect(try store(files).keys == ["a", "b"])
            try store(files).writeObject(4, forKey: "d")
        }
        #expect(logs.isEmpty)
        let batches = try records(files.contents(atPath: Self.logPath))
        #expect(batches == [["b": .value(.int(2))], ["d": .value(.int(4))]])
        #expect(try store(files).keys == ["a", "b", "d"])
    }

    @Test("a bad record in the middle is reported, and the next write moves the log aside and keeps the records before and after it")
    func corruptMiddle() throws {
        let files = InMemoryFileSystem()
        let writer = store(files)
        try writer.writeObject(1, forKey: "a")
        try writer.writeObject(2, forKey: "b")
        let goodEnd = try #require(files.contents(atPath: Self.logPath)).count
        try writer.writeObject(3, forKey: "c")
        let damagedEnd = try #require(files.contents(atPath: Self.logPath)).count
        try writer.writeObject(4, forKey: "d")
        var log = try #require(files.contents(atPath: Self.logPath))
        log[goodEnd + StoreLog.frameLength + 1] ^= 0x01  // inside the payload of "c"'s record
        files.createFile(atPath: Self.logPath, contents: log)

        let reader = store(files)
        let expected = PersistenceError(
            .corruptData, subject: Self.path,
            detail: "the log \(Self.logPath) is corrupt: bytes \(goodEnd)..<\(damagedEnd) are not a record; the log is kept and moved aside by the next write"
        )
        #expect(throws: expected) { try reader.readObject(forKey: "a") }
        let logs = try capturingLogs { try reader.writeObject(5, forKey: "e") }
        let backups = files.contentsOfDirectory(atPath: "/config/app").filter { $0.hasPrefix("defaults.json.log.corrupt-") }
        #expect(backups.count == 1)
        #expect(files.contents(atPath: "/config/app/\(backups.first ?? "")") == log, "the backup holds every byte")
        #expect(logs.count == 1)
        #expect(logs.first?.contains("bytes \(goodEnd)..<\(damagedEnd) are not a record") == true)
        #expect(logs.first?.contains("moved to /config/app/\(backups.first ?? "")") == true)
        let fresh = store(files)
        #expect(try fresh.keys == ["a", "b", "d", "e"], "the record after the damaged one is recovered")
        #expect(try fresh.readObject(forKey: "e") as? Int == 5)
        _ = try records(files.contents(atPath: Self.logPath))
    }

    @Test("a log that doesn't start with a log header is corrupt, reported, and moved aside by the next write")
    func badHeader() throws {
        let files = InMemoryFileSystem()
        try store(files).writeObject(1, forKey: "a")
        files.createFile(atPath: Self.logPath, text: "not a log")
        #expect(throws: PersistenceError.self) { try store(files).readObject(forKey: "a") }
        let logs = try capturingLogs { try store(files).writeObject(2, forKey: "b") }
        #expect(logs.count == 1)
        #expect(files.contentsOfDirectory(atPath: "/config/app").filter { $0.hasPrefix("defaults.json.log.corrupt-") }.count == 1)
        #expect(try store(files).keys == ["a", "b"])
    }

    @Test("compaction rewrites the file with every key and starts an empty log; readers that cached the old pair follow")
    func compactionKeepsEveryKey() throws {
        let files = InMemoryFileSystem()
        let writer = store(files, compactionThreshold: 512)
        let reader = store(files)
        var compactions = 0
        var lastLogSize = 0
        for index in 0..<300 {
            try writer.writeObject(index, forKey: "k\(index % 120)")
            if index % 7 == 0 { try writer.writeObject(nil, forKey: "k\((index + 1) % 120)") }
            let size = try #require(files.contents(atPath: Self.logPath)).count
            if size < lastLogSize { compactions += 1 }
            lastLogSize = size
            if index % 13 == 0 { _ = try reader.keys }
        }
        #expect(compactions >= 3)
        var expected: [String: Int] = [:]
        for index in 0..<300 {
            expected["k\(index % 120)"] = index
            if index % 7 == 0 { expected["k\((index + 1) % 120)"] = nil }
        }
        for candidate in [reader, store(files)] {
            #expect(try candidate.keys == expected.keys.sorted())
            for (key, value) in expected { #expect(try candidate.readObject(forKey: key) as? Int == value, "\(key)") }
        }
    }

    @Test("a crash between compaction's two renames (new file, old log) loses nothing: the old log's records apply again harmlessly")
    func crashDuringCompaction() throws {
        let files = InMemoryFileSystem()
        let writer = store(files)
        try writer.writeObject(1, forKey: "a")
        try writer.writeObject(2, forKey: "a")
        try writer.writeObject(nil, forKey: "b")
        try writer.writeObject(3, forKey: "c")
        // What compaction writes first: the file holding the log applied.
        files.createFile(atPath: Self.path, text: #"{"a": {"int": 2}, "c": {"int": 3}}"#)
        let reader = store(files)
        #expect(try reader.keys == ["a", "c"])
        #expect(try reader.readObject(forKey: "a") as? Int == 2)
        try reader.writeObject(4, forKey: "d")
        #expect(try store(files).keys == ["a", "c", "d"])
    }

    @Test("the default layout reads a store with a log, and its next write folds the log into the file and removes it")
    func singleFileFoldsTheLog() throws {
        let files = InMemoryFileSystem()
        let logging = store(files)
        for index in 0..<5 { try logging.writeObject(index, forKey: "k\(index)") }
        let plain = FileKeyValueStore(path: Self.path, fileSystem: files)
        #expect(try plain.keys == ["k0", "k1", "k2", "k3", "k4"])
        try plain.writeObject(9, forKey: "k0")
        #expect(!files.itemExists(atPath: Self.logPath))
        let file = try #require(files.contents(atPath: Self.path))
        let json = try #require(try JSONSerialization.jsonObject(with: file) as? [String: [String: Int]])
        #expect(json == ["k0": ["int": 9], "k1": ["int": 1], "k2": ["int": 2], "k3": ["int": 3], "k4": ["int": 4]])
        // The logging store follows, and starts a new log with its next write.
        #expect(try logging.readObject(forKey: "k0") as? Int == 9)
        try logging.writeObject(5, forKey: "k5")
        #expect(try plain.keys == ["k0", "k1", "k2", "k3", "k4", "k5"])
        #expect(files.itemExists(atPath: Self.logPath))
    }

    @Test("the default layout writes no log")
    func singleFileWritesNoLog() throws {
        let files = InMemoryFileSystem()
        let plain = FileKeyValueStore(path: Self.path, fileSystem: files)
        for index in 0..<5 { try plain.writeObject(index, forKey: "k") }
        #expect(!files.itemExists(atPath: Self.logPath))
        #expect(files.text(atPath: Self.path)?.contains(#""int" : 4"#) == true)
    }

    @Test("a failed compaction (disk full) keeps the acknowledged write in the log, is reported, and the next write compacts")
    func failedCompaction() throws {
        let files = InMemoryFileSystem()
        let writer = store(files, compactionThreshold: 64)
        try writer.writeObject(0, forKey: "k")
        files.fail(.create, at: Self.path, with: ENOSPC)
        let logs = try capturingLogs {
            for index in 1...5 { try writer.writeObject(index, forKey: "k") }
        }
        #expect(!logs.isEmpty)
        #expect(logs.allSatisfy { $0.contains("could not compact the store \(Self.path)") })
        #expect(try store(files).readObject(forKey: "k") as? Int == 5)
        files.removeFailures()
        try writer.writeObject(6, forKey: "k")
        #expect(try records(files.contents(atPath: Self.logPath)).isEmpty, "compacted")
        #expect(try store(files).readObject(forKey: "k") as? Int == 6)
    }

    @Test("an append that fails (disk full) leaves the log as it was; readers and the next write see no trace of it")
    func failedAppend() throws {
        let files = InMemoryFileSystem()
        let writer = store(files)
        try writer.writeObject(1, forKey: "a")
        try writer.writeObject(2, forKey: "b")
        let before = files.contents(atPath: Self.logPath)
        files.fail(.sync, at: Self.path, with: EIO, times: 1)
        #expect(throws: PersistenceError(.ioFailure, errno: EIO, subject: "key \"c\" in \(Self.path)", detail: "fsync failed (EIO)")) {
            try writer.writeObject(3, forKey: "c")
        }
        #expect(files.contents(atPath: Self.logPath) == before)
        #expect(try writer.keys == ["a", "b"])
        try writer.writeObject(4, forKey: "d")
        #expect(try store(files).keys == ["a", "b", "d"])
    }
}

/// Readers take no lock while a writer appends and compacts: each read must see a state the
/// store was in after every write acknowledged before it began.
@Suite("FileKeyValueStore: reads during compactions", .isolatedApplication, .reportsAsDiagnostics, .realFileSystem)
struct StoreLogConcurrentReadTests {
    @Test("a reader of another instance never sees a value go back nor miss one written before it, while the log is compacted every few writes")
    func readsStayConsistent() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let writer = FileKeyValueStore(
            path: path, durability: .processCrashSafe, layout: .appendOnlyLog, fileSystem: POSIXFileSystem(), compactionThreshold: 100
        )
        try writer.writeObject(-1, forKey: "k")
        try writer.writeObject(-1, forKey: "a")
        let writes = 3_000
        let problems = ProblemLog()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Another instance: its own cache, as another process would have.
            let reader = FileKeyValueStore(path: path, layout: .appendOnlyLog)
            var last = -1
            while last < writes - 1 {
                do {
                    let value = try reader.readObject(forKey: "k") as? Int ?? -2
                    if value < last { problems.add("k went back from \(last) to \(value)") }
                    let before = try reader.readObject(forKey: "a") as? Int ?? -2
                    if before < value { problems.add("a = \(before) after k = \(value)") }
                    last = max(last, value)
                } catch {
                    problems.add("\(error)")
                    break
                }
            }
            done.signal()
        }
        for index in 0..<writes {
            // "a" = i is acknowledged before "k" = i: whoever reads k = i must find a ≥ i.
            try writer.writeObject(index, forKey: "a")
            try writer.writeObject(index, forKey: "k")
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "the reader didn't see the last write within a minute")
        #expect(problems.messages.isEmpty, "\(problems.messages.prefix(5))")
    }
}

/// Problems found by another thread.
private final class ProblemLog: @unchecked Sendable {
    // Safe: `collected` is only accessed while `lock` is held.
    private let lock = NSLock()
    private var collected: [String] = []

    func add(_ message: String) {
        lock.withLock { collected.append(message) }
    }

    var messages: [String] {
        lock.withLock { collected }
    }
}
