import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// The in-memory file system behaves like the real one where AppStateKit depends on it, and
/// fails exactly where and as often as asked.
@Suite("InMemoryFileSystem", .isolatedApplication)
struct InMemoryFileSystemTests {
    @Test("atomic writes, reads, links and backups behave as on disk")
    func behavesLikeTheDisk() throws {
        let files = InMemoryFileSystem()
        try files.writeAtomically(Data("one".utf8), toFile: "/data/app/a.json")
        #expect(files.text(atPath: "/data/app/a.json") == "one")
        #expect(files.contentsOfDirectory(atPath: "/data/app") == ["a.json"])
        let first = try #require(try files.existingStamp(ofFile: "/data/app/a.json"))
        try files.writeAtomically(Data("two".utf8), toFile: "/data/app/a.json")
        #expect(try files.existingStamp(ofFile: "/data/app/a.json") != first)
        #expect(try files.contents(ofFile: "/data/app/missing.json") == nil)
        #expect(try files.existingStamp(ofFile: "/data/app/a.json/below") == nil)  // ENOTDIR is "absent"

        let backup = try files.moveAside("/data/app/a.json")
        #expect(files.text(atPath: backup) == "two")
        #expect(!files.itemExists(atPath: "/data/app/a.json"))
    }

    @Test("two file systems never give equal stamps, even for the same writes in the same order")
    func stampsDifferBetweenFileSystems() throws {
        let first = InMemoryFileSystem()
        let second = InMemoryFileSystem()
        try first.writeAtomically(Data("same".utf8), toFile: "/data/a.json")
        try second.writeAtomically(Data("same".utf8), toFile: "/data/a.json")
        let firstStamp = try #require(try first.existingStamp(ofFile: "/data/a.json"))
        let secondStamp = try #require(try second.existingStamp(ofFile: "/data/a.json"))
        // Same inode, size and modification time in each: only the device tells them apart.
        #expect(firstStamp.inode == secondStamp.inode)
        #expect(firstStamp.size == secondStamp.size)
        #expect(firstStamp != secondStamp)
        let firstDirectory = try #require(try first.status(of: "/data"))
        let secondDirectory = try #require(try second.status(of: "/data"))
        #expect(firstDirectory.stamp != secondDirectory.stamp)
    }

    @Test("a failure applies to its operation, its path and everything beneath it, as often as asked")
    func injectedFailures() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/data/a.json", text: "1")
        files.fail(.stat, at: "/data", with: EACCES, times: 1)
        #expect(throws: PersistenceError(.permissionDenied, subject: "/data/a.json", detail: "stat failed (EACCES)")) {
            try files.existingStamp(ofFile: "/data/a.json")
        }
        #expect(try files.existingStamp(ofFile: "/data/a.json") != nil)  // only once

        files.fail(.write, at: "/data/a.json", with: ENOSPC)
        #expect(throws: PersistenceError(.diskFull, subject: "/data/a.json", detail: "write failed (ENOSPC)")) {
            try files.writeAtomically(Data("2".utf8), toFile: "/data/a.json")
        }
        #expect(files.text(atPath: "/data/a.json") == "1")
        #expect(files.contentsOfDirectory(atPath: "/data") == ["a.json"])  // no temporary file left
        try files.writeAtomically(Data("b".utf8), toFile: "/data/b.json")  // other files still work

        files.removeFailures()
        try files.writeAtomically(Data("2".utf8), toFile: "/data/a.json")
        #expect(files.text(atPath: "/data/a.json") == "2")
    }

    @Test("delete(path:filename:) removes the file and ignores a missing one, on disk and in memory")
    func deleteFile() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/data/a.json", text: "1")
        try files.delete(path: "/data", filename: "a.json")
        #expect(!files.itemExists(atPath: "/data/a.json"))
        try files.delete(path: "/data", filename: "a.json")

        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.out(1, path: directory.path, filename: "n.json", base64Encoded: false)
        let manager: any FileManaging = FileManager.default
        try manager.delete(path: directory.path, filename: "n.json")
        #expect(!FileManager.default.fileExists(atPath: directory.file("n.json")))
        try manager.delete(path: directory.path, filename: "n.json")

        files.createFile(atPath: "/data/b.json", text: "1")
        files.fail(.remove, at: "/data/b.json", with: EIO)
        #expect(throws: PersistenceError(.ioFailure, errno: EIO, subject: "/data/b.json", detail: "unlink failed (EIO)")) {
            try files.delete(path: "/data", filename: "b.json")
        }
    }
}
