import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

private struct Note: Codable, Equatable, Sendable {
    var text: String
}

private extension Application {
    func note(in directory: String) -> FileState<Note> {
        fileState(initial: Note(text: "initial"), path: directory, filename: "note.json", isBase64Encoded: false)
    }

    func port(in store: FileKeyValueStore) -> StoredState<Int> {
        storedState(initial: 8080, feature: "Server", id: "port", store: store)
    }
}

/// Issue 11, item 4: only "absent" (`ENOENT`, `ENOTDIR`) means "no file"; every other `stat`
/// failure throws a `PersistenceError` naming the path and is reported by the non-throwing paths.
@Suite("A directory that can't be searched is an error, not \"no file\"", .isolatedApplication)
struct UnsearchableDirectoryTests {
    @Test("FileState: read() throws EACCES naming the file; value reports it once and returns the initial value")
    func fileStateInMemory() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/data/app/note.json", text: #"{"text": "saved"}"#)
        files.fail(.stat, at: "/data", with: EACCES)
        let logs = capturingLogs {
            Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
                let state = Application().note(in: "/data/app")
                #expect(throws: PersistenceError(.permissionDenied, subject: "/data/app/note.json", detail: "stat failed (EACCES)")) {
                    try state.read()
                }
                #expect(state.value == Note(text: "initial"))
                #expect(state.value == Note(text: "initial"))
                files.removeFailures()
                #expect(state.value == Note(text: "saved"))
            }
        }
        #expect(logs == ["AppStateKit: permission denied for /data/app/note.json: stat failed (EACCES)"])
    }

    @Test("StoredState's default store: read() throws EIO naming the store file; value reports it")
    func storedStateInMemory() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: "/config/app/defaults.json", fileSystem: files)
        try store.writeObject(9090, forKey: "Server/port")
        let state = Application().port(in: store)
        files.fail(.stat, at: "/config", with: EIO)
        let logs = capturingLogs {
            #expect(throws: PersistenceError(.ioFailure, errno: EIO, subject: "/config/app/defaults.json", detail: "stat failed (EIO)")) {
                try state.read()
            }
            #expect(state.value == 8080)
            #expect(store.object(forKey: "Server/port") == nil)
        }
        #expect(logs == [
            "AppStateKit: I/O error EIO for /config/app/defaults.json: stat failed (EIO)",
            "AppStateKit: I/O error EIO for /config/app/defaults.json: stat failed (EIO)",
        ])
    }

    @Test("on disk: a directory that is a symbolic-link loop (ELOOP, which stops root too) is an error for both kinds")
    func symbolicLinkLoopOnDisk() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let loop = directory.file("loop")
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: "loop")
        let unsearchable = (loop as NSString).appendingPathComponent("app")

        let files: any FileManaging = FileManager.default
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            let state = Application().note(in: unsearchable)
            do {
                _ = try state.read()
                Issue.record("expected an error")
            } catch let error as PersistenceError {
                #expect(error.kind == .ioFailure && error.errno == ELOOP)
                #expect(error.description == "I/O error ELOOP for \(unsearchable)/note.json: stat failed (ELOOP)")
            }
        }

        let store = FileKeyValueStore(path: (unsearchable as NSString).appendingPathComponent("defaults.json"))
        #expect(throws: PersistenceError.self) { try store.readObject(forKey: "k") }
    }

    @Test("absence stays silent: a missing directory (ENOENT) or a file on the way (ENOTDIR) reads the initial value")
    func absenceIsNotAnError() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/data/blocker", text: "a file, not a directory")
        let logs = try capturingLogs { () throws in
            try Application.withOverrides({ $0.override(\.fileManager, with: files) }) { () throws in
                #expect(try Application().note(in: "/data/missing").read() == Note(text: "initial"))
                #expect(try Application().note(in: "/data/blocker").read() == Note(text: "initial"))
            }
            let store = FileKeyValueStore(path: "/data/blocker/defaults.json", fileSystem: files)
            #expect(try store.readObject(forKey: "k") == nil)
        }
        #expect(logs.isEmpty)
    }
}
