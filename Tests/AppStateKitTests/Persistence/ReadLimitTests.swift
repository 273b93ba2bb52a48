import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 42, item 9: reads are bounded — a file larger than the limit is refused before it is
/// allocated, and nesting deeper than the limit is refused before a decoder recurses.
@Suite("Bounded reads", .isolatedApplication, .reportsAsDiagnostics)
struct ReadLimitTests {
    @Test("a store file larger than the limit is an error naming it; at most the limit + 1 bytes are read")
    func oversizedStore() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/data/defaults.json", text: #"{"k": {"string": ""# + String(repeating: "x", count: 5000) + #""}}"#)
        let store = FileKeyValueStore(path: "/data/defaults.json", fileSystem: files, maximumFileSize: 4096)
        let error = #expect(throws: PersistenceError.self) { try store.readObject(forKey: "k") }
        #expect(error?.errno == EFBIG)
        #expect(error?.description.contains("/data/defaults.json") == true)
        #expect(try FileKeyValueStore(path: "/data/defaults.json", fileSystem: files).readObject(forKey: "k") as? String != nil)
    }

    @Test("a log larger than the limit is an error; a write that would pass the limit is refused and the store keeps working")
    func oversizedLogAndWrites() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: "/data/defaults.json", layout: .appendOnlyLog, fileSystem: files, maximumFileSize: 1024)
        try store.writeObject(1, forKey: "small")
        #expect(throws: PersistenceError.self) { try store.writeObject(String(repeating: "y", count: 2000), forKey: "big") }
        #expect(try store.readObject(forKey: "small") as? Int == 1)
        var log = try #require(files.contents(atPath: "/data/defaults.json.log"))
        log.append(Data(count: 2000))
        files.createFile(atPath: "/data/defaults.json.log", contents: log)
        let reader = FileKeyValueStore(path: "/data/defaults.json", layout: .appendOnlyLog, fileSystem: files, maximumFileSize: 1024)
        let error = #expect(throws: PersistenceError.self) { try reader.readObject(forKey: "small") }
        #expect(error?.errno == EFBIG)
    }

    @Test("nesting deeper than the limit is corrupt data, found before decoding, on a 512 KiB thread")
    func deepNesting() throws {
        // Below Foundation's own limit of 512, so only this check stands between the file and
        // a decoder recursing once per level.
        let depth = 500
        let hostile = Data((#"{"k": {"array": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}}").utf8)
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/data/defaults.json", contents: hostile)
        files.createFile(atPath: "/data/state.json", contents: Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8))
        let outcome = LockedBox<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                _ = try FileKeyValueStore(path: "/data/defaults.json", fileSystem: files).readObject(forKey: "k")
                outcome.withLock { $0.append("store read") }
            } catch let error as PersistenceError {
                outcome.withLock { $0.append("store \(error.kind)") }
            } catch {
                outcome.withLock { $0.append("store \(error)") }
            }
            do {
                _ = try FileStateCodec.decode(try #require(files.contents(atPath: "/data/state.json")), as: [[String]].self, path: "/data/state.json")
                outcome.withLock { $0.append("file read") }
            } catch let error as PersistenceError {
                outcome.withLock { $0.append("file \(error.kind)") }
            } catch {
                outcome.withLock { $0.append("file \(error)") }
            }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(outcome.withLock { $0 } == ["store corrupt data", "file corrupt data"])
    }
}
