import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// A file manager written against AppState's `FileManaging`: it implements only what that
/// protocol requires and takes `in`, `out` and `delete` from the default implementations.
private struct AppStateStyleFiles: FileManaging {
    func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: path)
    }
}

/// A file manager of the user's that keeps files in a dictionary (an encrypting or mock file
/// manager would do the same) and records every call FileState makes.
private final class RecordingFiles: FileManaging, @unchecked Sendable {
    // Safe: `files`, `calls` and the failures are only accessed while `lock` is held.
    private let lock = NSLock()
    private var files: [String: Data] = [:]
    private var recorded: [String] = []
    private var readFailure: (any Error)?
    private var writeFailure: (any Error)?

    var calls: [String] { lock.withLock { recorded } }

    func failReads(with error: (any Error)?) { lock.withLock { readFailure = error } }
    func failWrites(with error: (any Error)?) { lock.withLock { writeFailure = error } }

    private func record(_ call: String) { lock.withLock { recorded.append(call) } }

    func removeItem(atPath path: String) throws {
        record("removeItem \(path)")
        lock.withLock { files[path] = nil }
    }

    func `in`<Value: Decodable>(path: String, filename: String) throws -> Value {
        record("in \(filename)")
        let (data, failure) = lock.withLock { (files[path + "/" + filename], readFailure) }
        if let failure { throw failure }
        guard let data else { throw CocoaError(.fileReadNoSuchFile) }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    func out<Value: Encodable>(_ value: Value, path: String, filename: String, base64Encoded: Bool) throws {
        record("out \(filename) base64: \(base64Encoded)")
        if let failure = lock.withLock({ writeFailure }) { throw failure }
        let data = try JSONEncoder().encode(value)
        lock.withLock { files[path + "/" + filename] = data }
    }

    func delete(path: String, filename: String) throws {
        record("delete \(filename)")
        lock.withLock { files[path + "/" + filename] = nil }
    }
}

@Suite("FileManaging: AppState's protocol, honoured by FileState", .isolatedApplication, .reportsAsDiagnosticsInEveryApplication)
struct FileManagingTests {
    @Test("a file manager of the user's is honoured: FileState reads with in on every read, writes with out, deletes with delete; no real file is touched")
    func userFileManagerIsHonoured() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let files = RecordingFiles()
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            let application = Application()
            var count = application.fileState(initial: 0, path: directory.path, filename: "count.json")
            var optional: Application.FileState<Int?> = application.fileState(path: directory.path, filename: "optional.json")
            #expect(count.value == 0)  // no file: in threw fileReadNoSuchFile
            count.value = 3
            #expect(count.value == 3)
            #expect(count.value == 3)  // read again: FileState can't know the file is unchanged
            count.value += 1
            try count.update { $0 *= 10 }
            #expect(try count.read() == 40)
            optional.value = 1
            optional.value = nil
            count.reset()
            #expect(count.value == 0)
        }
        #expect(files.calls == [
            "in count.json",
            "out count.json base64: true", "in count.json", "in count.json",
            "in count.json", "out count.json base64: true",
            "in count.json", "out count.json base64: true",
            "in count.json",
            "out optional.json base64: true", "delete optional.json",
            "delete count.json", "in count.json",
        ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing was written at the declared paths")
    }

    @Test("a file manager of the user's that can't read (EACCES) is not \"no file\": read() throws and value reports, naming the path")
    func userFileManagerErrorsSurface() throws {
        let files = RecordingFiles()
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            var count = Application().fileState(initial: 0, path: "/srv/app", filename: "count.json")
            count.value = 5
            files.failReads(with: CocoaError(.fileReadNoPermission))
            #expect(throws: PersistenceError(.permissionDenied, subject: "/srv/app/count.json", detail: "the file manager failed (EACCES)")) {
                try count.read()
            }
            let logs = capturingLogs { #expect(count.value == 0) }
            #expect(logs == ["AppStateKit: permission denied for /srv/app/count.json: the file manager failed (EACCES)"])
            files.failReads(with: nil)
            files.failWrites(with: POSIXError(.ENOSPC))
            #expect(throws: PersistenceError(.diskFull, subject: "/srv/app/count.json", detail: "the file manager failed (ENOSPC)")) {
                try count.write(6)
            }
            let kept = try count.read()
            #expect(kept == 5)
        }
    }

    @Test("a file manager written against AppState's protocol (only removeItem) gets in, out and delete on the real files")
    func appStateStyleDefaults() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let files = AppStateStyleFiles()
        #expect(files.localFiles == nil)
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            var state = Application().fileState(initial: 0, path: directory.path, filename: "count.json", isBase64Encoded: false)
            state.value = 3
            #expect(try String(contentsOfFile: directory.file("count.json"), encoding: .utf8) == "3")
            #expect(try files.in(path: directory.path, filename: "count.json") as Int == 3)
            try files.out(4, path: directory.path, filename: "count.json", base64Encoded: false)
            #expect(state.value == 4)
            try files.delete(path: directory.path, filename: "count.json")
            #expect(!FileManager.default.fileExists(atPath: directory.file("count.json")))
            #expect(state.value == 0)
        }
    }

    @Test("out(data:) and data(path:filename:) round-trip bytes, base64-encoded or raw, as AppState's do")
    func dataRoundTrip() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let files = InMemoryFileSystem()
        let bytes = Data([0, 1, 2, 250, 255])
        for fileManager in [FileManager.default, files] as [any FileManaging] {
            try fileManager.out(data: bytes, path: directory.path, filename: "encoded.bin")
            #expect(try fileManager.data(path: directory.path, filename: "encoded.bin") == bytes)
            try fileManager.out(data: Data("plain text".utf8), path: directory.path, filename: "raw.txt", base64Encoded: false)
            #expect(try fileManager.data(path: directory.path, filename: "raw.txt") == Data("plain text".utf8))
            #expect(throws: PersistenceError.self) { try fileManager.data(path: directory.path, filename: "missing.bin") }
        }
        // On disk (FileManager's files), the encoded file holds base64 text and the raw one the
        // bytes themselves.
        #expect(try String(contentsOfFile: directory.file("encoded.bin"), encoding: .utf8) == bytes.base64EncodedString())
        #expect(try String(contentsOfFile: directory.file("raw.txt"), encoding: .utf8) == "plain text")
        #expect(try files.data(path: directory.path, filename: "raw.txt") == Data("plain text".utf8))
    }

    @Test("the built-in file managers supply FileState's atomic files themselves")
    func builtInFileManagers() {
        #expect((FileManager.default as any FileManaging).localFiles?.fileSystem is POSIXFileSystem)
        #expect((InMemoryFileSystem() as any FileManaging).localFiles?.fileSystem is InMemoryFileSystem)
        #expect(Application.dependency(\.fileManager).localFiles?.sandbox != nil)
    }

    @Test("in(path:filename:) of a missing file throws ioFailure with errno ENOENT, naming the path")
    func missingFile() {
        let files = InMemoryFileSystem()
        #expect(throws: PersistenceError(.ioFailure, errno: ENOENT, subject: "/none/x.json", detail: "there is no such file")) {
            let _: Int = try files.in(path: "/none", filename: "x.json")
        }
    }
}
