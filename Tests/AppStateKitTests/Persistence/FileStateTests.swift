import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private struct Notebook: Codable, Equatable, Sendable {
    var title: String
    var pages: [String]
}

/// Each test declares its own directory so parallel tests never share files.
private extension Application {
    func notebook(in directory: String, base64: Bool = true) -> FileState<Notebook> {
        fileState(initial: Notebook(title: "empty", pages: []), path: directory, filename: "notebook.json", isBase64Encoded: base64)
    }

    func optionalNotebook(in directory: String) -> FileState<Notebook?> {
        fileState(path: directory, filename: "optional.json", isBase64Encoded: false)
    }

    func named(_ filename: String, in directory: String) -> FileState<Int> {
        fileState(initial: 0, path: directory, filename: filename)
    }

    var wrappedNotebook: FileState<Notebook> {
        fileState(initial: Notebook(title: "wrapped", pages: []), path: FileStateTests.wrapperDirectory.path, filename: "wrapped.json")
    }
}

/// The real file system, where another process replaces every file right after this one
/// renamed it into place.
private struct LosingTheRace: FileSystem, FileManaging {
    let real = POSIXFileSystem()

    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        try real.rename(source, to: destination)
        guard !destination.hasSuffix(".lock") else { return }
        do {
            try AtomicFileWriter.write(Data("99".utf8), to: destination)  // the other process
        } catch {
            Issue.record(error)
        }
    }

    func removeItem(atPath path: String) throws { try FileManager.default.removeItem(atPath: path) }
    func status(of path: String) throws(FileSystemError) -> FileStatus? { try real.status(of: path) }
    func linkTarget(of path: String) throws(FileSystemError) -> String? { try real.linkTarget(of: path) }
    func contents(of path: String, from offset: Int, limit: Int?, for target: String) throws(FileSystemError) -> (data: Data, stamp: FileStamp)? {
        try real.contents(of: path, from: offset, limit: limit, for: target)
    }
    func append(_ data: Data, to path: String, after length: Int, durable: Bool, for target: String) throws(FileSystemError) -> FileStamp {
        try real.append(data, to: path, after: length, durable: durable, for: target)
    }
    func createFile(_ path: String, contents: Data, datedAfter previous: FileStamp?, durable: Bool, replacing target: String) throws(FileSystemError) -> FileStamp {
        try real.createFile(path, contents: contents, datedAfter: previous, durable: durable, replacing: target)
    }
    func link(_ source: String, to destination: String) throws(FileSystemError) { try real.link(source, to: destination) }
    func remove(_ path: String) throws(FileSystemError) { try real.remove(path) }
    func makeDirectory(_ path: String) throws(FileSystemError) { try real.makeDirectory(path) }
    func synchronizeDirectory(_ path: String) throws(FileSystemError) { try real.synchronizeDirectory(path) }
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] { try real.contentsOfDirectory(path) }
    func withExclusiveLock<Result>(_ lockPath: String, _ body: () throws -> Result) throws -> Result { try real.withExclusiveLock(lockPath, body) }
    func sharedGeneration(forLockFile lockPath: String, create: Bool) -> SharedGenerationLookup {
        real.sharedGeneration(forLockFile: lockPath, create: create)
    }
}

private struct Library {
    @FileState(\.wrappedNotebook) var notebook
}

@Suite("FileState", .isolatedApplication, .reportsAsDiagnosticsInEveryApplication)
struct FileStateTests {
    static let wrapperDirectory = TemporaryDirectory.forProcess()

    @Test("values round-trip; human-readable JSON when not base64; 0600 files in 0700 directories", .realFileSystem)
    func roundTripAndFormat() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.file("data")
        var plain = Application().notebook(in: folder, base64: false)
        #expect(plain.value == Notebook(title: "empty", pages: []))
        #expect(!FileManager.default.fileExists(atPath: plain.path))  // reading never writes
        plain.value = Notebook(title: "Ideas", pages: ["one"])
        let text = try String(contentsOfFile: plain.path, encoding: .utf8)
        #expect(text.contains("\"title\" : \"Ideas\""))
        #expect(try TemporaryDirectory.permissions(of: plain.path) == 0o600)
        #expect(try TemporaryDirectory.permissions(of: folder) == 0o700)
        #expect(Application().notebook(in: folder, base64: false).value.pages == ["one"])
    }

    @Test("base64 by default, and files written the way AppState writes them are read", .realFileSystem)
    func base64AndAppStateFiles() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var state = Application().notebook(in: directory.path)
        state.value = Notebook(title: "b64", pages: [])
        let raw = try Data(contentsOf: URL(fileURLWithPath: state.path))
        let decoded = try JSONDecoder().decode(Notebook.self, from: Data(base64Encoded: raw)!)
        #expect(decoded.title == "b64")

        // AppState: JSONEncoder output, base64-encoded.
        let appStateBytes = try JSONEncoder().encode(Notebook(title: "from AppState", pages: ["p"])).base64EncodedData()
        try appStateBytes.write(to: URL(fileURLWithPath: state.path))
        #expect(Application.fileState(\.wrappedNotebook).value.title == "wrapped")
        #expect(try state.read() == Notebook(title: "from AppState", pages: ["p"]))
        let fromFileManager: Notebook = try FileManager.default.in(path: directory.path, filename: "notebook.json")
        #expect(fromFileManager.title == "from AppState")
    }

    @Test("a change made to the file by another process is seen by the next read", .realFileSystem)
    func freshness() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var state = Application().notebook(in: directory.path, base64: false)
        state.value = Notebook(title: "mine", pages: [])
        #expect(state.value.title == "mine")
        try FileManager.default.out(Notebook(title: "theirs", pages: []), path: directory.path, filename: "notebook.json", base64Encoded: false)
        #expect(state.value.title == "theirs")
    }

    @Test("a replacement by another process right after this one's write is seen by the next read", .realFileSystem)
    func replacementRightAfterWrite() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        Application.withOverrides({ $0.override(\.fileManager, with: LosingTheRace() as any FileManaging) }) {
            var state = Application().named("race.json", in: directory.path)
            state.value = 1
            #expect(state.value == 99)
        }
    }

    @Test("assigning nil deletes the file; reset deletes it too", .realFileSystem)
    func nilDeletes() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var optional = Application().optionalNotebook(in: directory.path)
        #expect(optional.value == nil)
        optional.value = Notebook(title: "x", pages: [])
        #expect(FileManager.default.fileExists(atPath: optional.path))
        optional.value = nil
        #expect(!FileManager.default.fileExists(atPath: optional.path))

        var state = Application().notebook(in: directory.path)
        state.value = Notebook(title: "y", pages: [])
        state.reset()
        #expect(!FileManager.default.fileExists(atPath: state.path))
        #expect(state.value.title == "empty")
    }

    @Test("a corrupt file reads as the initial value, throws from read(), and is moved aside, not overwritten", .realFileSystem)
    func corruptFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var state = Application().notebook(in: directory.path, base64: false)
        let garbage = Data("{\"title\": 3".utf8)
        try garbage.write(to: URL(fileURLWithPath: state.path))
        #expect(state.value.title == "empty")
        do {
            _ = try state.read()
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.kind == .corruptData)
            #expect(error.description.contains(state.path))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: state.path)) == garbage)

        state.value = Notebook(title: "new", pages: [])
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("notebook.json.corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file(aside[0]))) == garbage)
        #expect(state.value.title == "new")
    }

    @Test("a corrupt file is moved aside by a write even when this process never read it", .realFileSystem)
    func corruptFileNeverRead() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("notebook.json")
        let handEdited = Data("{\"title\": \"typo\", \"pages\": [".utf8)
        try handEdited.write(to: URL(fileURLWithPath: path))

        try Application().notebook(in: directory.path, base64: false).write(Notebook(title: "new", pages: []))

        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("notebook.json.corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file(aside[0]))) == handEdited)
        #expect(Application().notebook(in: directory.path, base64: false).value.title == "new")
    }

    @Test("a valid file written elsewhere is replaced by a write without being moved aside", .realFileSystem)
    func validFileReplaced() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.out(Notebook(title: "theirs", pages: []), path: directory.path, filename: "notebook.json", base64Encoded: false)
        try Application().notebook(in: directory.path).write(Notebook(title: "mine", pages: []))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["notebook.json"])
        #expect(Application().notebook(in: directory.path).value.title == "mine")
    }

    @Test("file names that are not one path component are refused and nothing outside the directory is touched", .realFileSystem,
          arguments: ["", ".", "..", "../escape.json", "a/b.json", "nul\u{0}.json"] as [PrintableArgument])
    func invalidFilenames(filename argument: PrintableArgument) throws {
        let filename = argument.value
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let inner = directory.file("inner")
        var state = Application().named(filename, in: inner)
        do {
            try state.write(5)
            Issue.record("expected an error for \(filename.debugDescription)")
        } catch let error as PersistenceError {
            #expect(error.kind == .invalidFilename)
            #expect(error.description.contains("single path component"))
        }
        state.value = 6
        #expect(state.value == 0)
        state.reset()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("names of the files kept beside a FileState's file are refused, so its writers never touch another FileState", .realFileSystem)
    func reservedFilenames() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var notes = Application().named("notes.json", in: directory.path)
        var lock = Application().named("notes.json.lock", in: directory.path)
        #expect(throws: PersistenceError(
            .invalidFilename, subject: "FileState in \(directory.path)",
            detail: "\"notes.json.lock\" ends in \".lock\", the name of the lock file kept beside each FileState's file "
                + "(\"notes.json\" keeps its lock in \"notes.json.lock\"); choose another name"
        )) {
            try lock.write(42)
        }
        // The refused name writes nothing, so the lock file holds only the counter notes' writers move.
        lock.value = 42
        try notes.update { $0 += 1 }
        notes.value = 2
        #expect(lock.value == 0)
        #expect(try notes.read() == 2)

        var temporary = Application().named("notes.json.tmp-99999999-1", in: directory.path)
        #expect(throws: PersistenceError(
            .invalidFilename, subject: "FileState in \(directory.path)",
            detail: "\"notes.json.tmp-99999999-1\" has the shape of the temporary files FileState writes before renaming "
                + "(\"<filename>.tmp-<pid>-<n>\"), which are removed when their process is gone; choose another name"
        )) {
            try temporary.write(1)
        }
        temporary.value = 1
        #expect(temporary.value == 0)

        // Names that merely contain the words are fine.
        for filename in ["deploy.lock.json", "notes.tmp-draft", "notes.tmp-1-2.json", "lock"] {
            let state = Application().named(filename, in: directory.path)
            try state.write(7)
            #expect(try state.read() == 7, "\(filename)")
        }
    }

    @Test("the @FileState wrapper reads and writes")
    func wrapper() {
        let library = Library()
        library.notebook = Notebook(title: "wrapped write", pages: [])
        #expect(Application.fileState(\.wrappedNotebook).value.title == "wrapped write")
        Application.reset(fileState: \.wrappedNotebook)
        #expect(library.notebook.title == "wrapped")
    }
}
