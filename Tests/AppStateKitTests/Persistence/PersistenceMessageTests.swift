import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

private struct Notebook: Codable, Equatable, Sendable {
    var title: String
    var pages: [String]
}

/// Issue 11, item 12: the exact text users read. One format (`AppStateKit: <what> for
/// <subject>: <detail>` when logged), the store file on type mismatches, no "base64" blamed for
/// a file that isn't base64, no Foundation error dumps.
@Suite("Persistence messages", .isolatedApplication, .reportsAsDiagnostics)
struct PersistenceMessageTests {
    @Test("a StoredState type mismatch names the key and the store file, once, with one prefix")
    func typeMismatch() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: "/config/app/defaults.json", fileSystem: files)
        try store.writeObject("eighty", forKey: "Server/port")
        let port = Application().storedState(initial: 8080, feature: "Server", id: "port", store: store)
        let logs = capturingLogs {
            #expect(port.value == 8080)
            #expect(port.value == 8080)
        }
        #expect(logs == [#"AppStateKit: type mismatch for key "Server/port" in /config/app/defaults.json: stored String, expected Int"#])
        #expect(throws: PersistenceError(
            .typeMismatch, subject: #"key "Server/port" in /config/app/defaults.json"#, detail: "stored String, expected Int"
        )) {
            try port.read()
        }
    }

    @Test("FileState: an empty file is \"empty\", a JSON file that doesn't match says where, base64 only when it is base64")
    func fileStateDecoding() throws {
        let files = InMemoryFileSystem()
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            let state = Application().fileState(initial: Notebook(title: "", pages: []), path: "/data", filename: "book.json")
            files.createFile(atPath: "/data/book.json", text: "")
            #expect(throws: PersistenceError(.corruptData, subject: "/data/book.json", detail: "the file is empty")) {
                try state.read()
            }
            files.createFile(atPath: "/data/book.json", text: #"{"title": 3, "pages": []}"#)
            #expect(throws: PersistenceError(
                .corruptData, subject: "/data/book.json", detail: "the JSON does not decode as Notebook: expected String at title"
            )) {
                try state.read()
            }
            files.createFile(atPath: "/data/book.json", contents: Data(#"{"title": "t", "pages": [1]}"#.utf8).base64EncodedData())
            #expect(throws: PersistenceError(
                .corruptData, subject: "/data/book.json", detail: "the base64-encoded JSON does not decode as Notebook: expected String at pages[0]"
            )) {
                try state.read()
            }
            files.createFile(atPath: "/data/book.json", text: #"{"title": "t""#)
            let error = try #require(throws: PersistenceError.self) { try state.read() }
            #expect(error.description.hasPrefix("corrupt data for /data/book.json: the JSON does not decode as Notebook: "))
            #expect(!error.description.contains("base64"))
            #expect(!error.description.contains("NSError") && !error.description.contains("Context("))
        }
    }

    @Test("moving corrupt data aside reports one line naming the problem and the backup")
    func movedAside() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/config/defaults.json", text: "{ not json")
        let store = FileKeyValueStore(path: "/config/defaults.json", fileSystem: files)
        #expect(throws: PersistenceError(
            .corruptData, subject: "/config/defaults.json",
            detail: "the file is not a JSON object of entries (the given data was not valid JSON); the file is kept and moved aside by the next write"
        )) {
            try store.readObject(forKey: "k")
        }
        let logs = try capturingLogs { try store.writeObject(1, forKey: "k") }
        let backup = try #require(files.contentsOfDirectory(atPath: "/config").first { $0.hasPrefix("defaults.json.corrupt-") })
        #expect(logs == [
            "AppStateKit: corrupt data for /config/defaults.json: the file is not a JSON object of entries (the given data was not valid JSON); the file was moved to /config/\(backup)",
        ])
    }

    @Test("system failures name the path, the call and the errno", arguments: [
        (InMemoryFileSystem.Operation.create, EACCES, "permission denied for /data/a.json: create failed (EACCES)"),
        (.write, ENOSPC, "disk full for /data/a.json: write failed (ENOSPC)"),
        (.sync, EIO, "I/O error EIO for /data/a.json: fsync failed (EIO)"),
        (.rename, EROFS, "read-only file system for /data/a.json: rename failed (EROFS)"),
        (.makeDirectory, EDQUOT, "disk full for /data: mkdir failed (EDQUOT)"),
    ])
    func systemFailures(operation: InMemoryFileSystem.Operation, code: Int32, message: String) throws {
        let files = InMemoryFileSystem()
        files.fail(operation, at: "/data", with: code)
        let error = try #require(throws: PersistenceError.self) { try files.writeAtomically(Data("1".utf8), toFile: "/data/a.json") }
        #expect(error.description == message)
    }
}
