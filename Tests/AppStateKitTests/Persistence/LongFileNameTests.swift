import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 11, item 7: every legal file name (up to 255 bytes) can be written — temporary files,
/// lock files and backups always fit — and longer names are refused up front as invalid.
@Suite("File names up to 255 bytes", .isolatedApplication)
struct LongFileNameTests {
    /// A name of exactly `length` bytes, with multi-byte characters near the end so shortening
    /// must respect character boundaries.
    static func name(_ length: Int) -> String {
        String(repeating: "n", count: length - 9) + "é.json" + "é"  // é is 2 bytes
    }

    @Test("FileState: names of 235 to 255 bytes are written, read back and moved aside when corrupt", arguments: [235, 240, 250, 255])
    func fileStateOnDisk(length: Int) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let filename = Self.name(length)
        #expect(filename.utf8.count == length)
        let files: any FileManaging = FileManager.default
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            var state = Application().fileState(initial: 0, path: directory.path, filename: filename)
            try state.write(4)
            // An update takes the file's lock, whose name is shortened like the counter's.
            try state.update { $0 += 1 }
            #expect(try state.read() == 5)
            state.value = 6
            #expect(state.value == 6)
            try Data("not json".utf8).write(to: URL(fileURLWithPath: state.path))
            let logs = capturingLogs { state.value = 7 }
            #expect(state.value == 7)
            #expect(logs.count == 1)
        }
        // The file, its backup, and the lock file holding its generation counter (created by
        // the first read of an existing file), whose name is shortened to fit.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.count == 3)
        #expect(names.allSatisfy { $0.utf8.count <= 255 })
        #expect(names.contains(filename))
        #expect(names.contains((AtomicFileWriter.lockFile(of: directory.file(filename)) as NSString).lastPathComponent))
    }

    @Test("FileKeyValueStore: a 255-byte store name is written (its lock file fits too)")
    func storeOnDisk() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file(Self.name(255))
        try FileKeyValueStore(path: path).writeObject(1, forKey: "k")
        #expect(FileKeyValueStore(path: path).object(forKey: "k") as? Int == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { $0.utf8.count <= 255 })
    }

    @Test("LocalSyncStore: a 255-byte file name is written and read back (its lock file fits too)")
    func syncStoreOnDisk() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file(Self.name(255))
        _ = try await LocalSyncStore(path: path).write(Data("1".utf8), forKey: "App/k")
        #expect(try await LocalSyncStore(path: path).fetchRecord(forKey: "App/k")?.value == Data("1".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { $0.utf8.count <= 255 })
    }

    @Test("a 256-byte name is refused as invalid before anything is touched")
    func tooLong() throws {
        let files = InMemoryFileSystem()
        let filename = Self.name(256)
        Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            let state = Application().fileState(initial: 0, path: "/data", filename: filename)
            #expect(throws: PersistenceError(
                .invalidFilename, subject: "FileState in /data", detail: "the file name is 256 bytes long; the limit is 255"
            )) {
                try state.write(1)
            }
        }
        let store = FileKeyValueStore(path: "/config/" + filename, fileSystem: files)
        #expect(throws: PersistenceError(
            .invalidFilename, subject: "key \"k\" in /config/" + filename, detail: "the file name is 256 bytes long; the limit is 255"
        )) {
            try store.writeObject(1, forKey: "k")
        }
        #expect(!files.itemExists(atPath: "/data"))
    }
}
