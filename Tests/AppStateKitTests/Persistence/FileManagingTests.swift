import Foundation
import Testing
@testable import AppStateKit
import AppStateKitTesting

/// A file manager written against AppState's `FileManaging`: it implements only what that
/// protocol requires and takes `in`, `out` and `delete` from the default implementations.
private struct AppStateStyleFiles: FileManaging {
    func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: path)
    }
}

/// Another file manager of the user's, used by one test only: its type is reported once per
/// process, so no other test may touch it first.
private struct ReportedFiles: FileManaging {
    func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: path)
    }
}

@Suite("FileManaging: AppState's protocol; FileState's atomic files are a package seam", .isolatedApplication)
struct FileManagingTests {
    @Test("with a file manager of the user's, FileState uses the real file system at the declared path; in, out and delete work")
    func userFileManager() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let files = AppStateStyleFiles()
        #expect(files.atomicFiles is RealFiles)
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

    @Test("a file manager of the user's is reported, once per type: file states use the real files, not it")
    func userFileManagerReported() throws {
        _ = Application.logger  // installs the process's reporting seam, if nothing did yet
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logs = capturingLogs {
            Application.withOverrides({ $0.override(\.fileManager, with: ReportedFiles()) }) {
                var state = Application().fileState(initial: 0, path: directory.path, filename: "count.json", isBase64Encoded: false)
                state.value = 1
                state.value = 2
                #expect(state.value == 2)
            }
        }
        let reports = logs.filter { $0.contains("ReportedFiles, a FileManaging of your own") }
        #expect(reports.count == 1)
        #expect(reports.first?.contains("file states read and write the real files at their declared paths") == true)
        #expect(try String(contentsOfFile: directory.file("count.json"), encoding: .utf8) == "2")
    }

    @Test("the built-in file managers supply FileState's atomic files themselves")
    func builtInFileManagers() {
        #expect((FileManager.default as any FileManaging).atomicFiles is FileManager)
        #expect((InMemoryFileSystem() as any FileManaging).atomicFiles is InMemoryFileSystem)
        #expect(Application.dependency(\.fileManager).atomicFiles is SandboxFileManager)
    }

    @Test("in(path:filename:) of a missing file throws ioFailure with errno ENOENT, naming the path")
    func missingFile() {
        let files = InMemoryFileSystem()
        #expect(throws: PersistenceError(.ioFailure, errno: ENOENT, subject: "/none/x.json", detail: "there is no such file")) {
            let _: Int = try files.in(path: "/none", filename: "x.json")
        }
    }
}
