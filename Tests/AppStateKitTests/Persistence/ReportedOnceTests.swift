import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

extension Application {
    fileprivate var onceCounter: StoredState<Int> { storedState(initial: 0, feature: "Once", id: "counter") }
    fileprivate var onceFile: FileState<Int> { fileState(initial: 0, path: "/once", filename: "count.json", isBase64Encoded: false) }
}

/// Issue 34, item 9: each failure of a non-throwing `Application.update` is reported once, with
/// one ending — not once by the read and again, differently, by the change.
@Suite("A refused update is reported once", .isolatedApplication)
struct ReportedOnceTests {
    @Test("StoredState: a value that does not decode")
    func storedUndecodable() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/config/defaults.json", text: #"{"Once/counter": {"json": "\"text\""}}"#)
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: "/config/defaults.json", fileSystem: files))
        let logs = capturingLogs { Application.update(\.onceCounter) { $0 += 1 } }
        #expect(logs.count == 1, "\(logs)")
    }

    @Test("StoredState: the store's file is not a store")
    func storedCorruptStore() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/config/defaults.json", text: "not json")
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: "/config/defaults.json", fileSystem: files))
        let logs = capturingLogs { Application.update(\.onceCounter) { $0 += 1 } }
        #expect(logs.count == 1, "\(logs)")
    }

    @Test("StoredState: the write fails")
    func storedWriteFails() throws {
        let files = InMemoryFileSystem()
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: "/config/defaults.json", fileSystem: files))
        files.fail(.write, at: "/config/defaults.json", with: ENOSPC)
        let logs = capturingLogs { Application.update(\.onceCounter) { $0 += 1 } }
        #expect(logs.count == 1, "\(logs)")
    }

    @Test("StoredState: the read fails")
    func storedReadFails() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/config/defaults.json", text: #"{"Once/counter": {"int": 1}}"#)
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: "/config/defaults.json", fileSystem: files))
        files.fail(.read, at: "/config/defaults.json", with: EIO)
        let logs = capturingLogs { Application.update(\.onceCounter) { $0 += 1 } }
        #expect(logs.count == 1, "\(logs)")
    }

    @Test("FileState: the file does not decode")
    func fileUndecodable() {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/once/count.json", text: "not json")
        Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            let logs = capturingLogs { Application.update(\.onceFile) { $0 += 1 } }
            #expect(logs.count == 1, "\(logs)")
        }
    }

    @Test("FileState: the write fails")
    func fileWriteFails() {
        let files = InMemoryFileSystem()
        files.fail(.write, at: "/once/count.json", with: ENOSPC)
        Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            let logs = capturingLogs { Application.update(\.onceFile) { $0 += 1 } }
            #expect(logs.count == 1, "\(logs)")
        }
    }

    @Test("FileState: the read fails")
    func fileReadFails() {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/once/count.json", text: "1")
        files.fail(.read, at: "/once/count.json", with: EIO)
        Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            let logs = capturingLogs { Application.update(\.onceFile) { $0 += 1 } }
            #expect(logs.count == 1, "\(logs)")
        }
    }
}
