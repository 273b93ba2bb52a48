import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting
#if canImport(Glibc)
import Glibc
#endif

/// Issue 42, item 4: links planted in a directory others can write, or owned by another user,
/// are never followed; lock files are never links; nothing outside the declared directory is
/// replaced, moved aside or deleted; an atomic replace keeps the replaced file's mode and owner.
///
/// Every link and file here lives in a temporary directory the test creates; "another user" is
/// uid/gid 65534 (nobody), given with `chown`, which the tests (run as root) may do.
@Suite("Planted links and shared directories", .isolatedApplication, .reportsAsDiagnostics)
struct PlantedLinkTests {
    static let nobody: UInt32 = 65534
    static let secret = "PRIVATE-KEY-MATERIAL"

    /// `<dir>/private/id_ed25519` holding ``secret``, and the directory `<dir>/<shared>` with `mode`.
    private func victim(in directory: TemporaryDirectory, shared: String = "shared", mode: mode_t = 0o700) throws -> (victim: String, shared: String) {
        try FileManager.default.createDirectory(atPath: directory.file("private"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file(shared), withIntermediateDirectories: true)
        #expect(chmod(directory.file(shared), mode) == 0)
        let victim = directory.file("private/id_ed25519")
        try Data(Self.secret.utf8).write(to: URL(fileURLWithPath: victim))
        return (victim, directory.file(shared))
    }

    private func untouched(_ victim: String, in directory: TemporaryDirectory) throws {
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == Self.secret)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("private")) == ["id_ed25519"])
    }

    @Test("a store file planted as a link in a directory every user can write is refused; the target stays as it was")
    func linkInWorldWritableDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (victim, shared) = try victim(in: directory, mode: 0o1777)
        try FileManager.default.createSymbolicLink(atPath: "\(shared)/defaults.json", withDestinationPath: victim)
        let store = FileKeyValueStore(path: "\(shared)/defaults.json")
        #expect(throws: PersistenceError.self) { try store.writeObject(1, forKey: "k") }
        #expect(throws: PersistenceError.self) { try store.readObject(forKey: "k") }
        try untouched(victim, in: directory)
    }

    @Test("a store file that is a link owned by another user is not followed, even in a private directory")
    func linkOwnedByAnotherUser() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (victim, shared) = try victim(in: directory)
        let link = "\(shared)/defaults.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        #expect(lchown(link, Self.nobody, Self.nobody) == 0)
        let error = #expect(throws: PersistenceError.self) { try FileKeyValueStore(path: link).writeObject(1, forKey: "k") }
        #expect(error?.kind == .permissionDenied)
        #expect(error?.description.contains(link) == true)
        try untouched(victim, in: directory)
    }

    @Test("a lock file planted as a link is never opened through it: the target's bytes are not incremented")
    func lockFileLink() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (victim, shared) = try victim(in: directory)
        try FileManager.default.createSymbolicLink(atPath: "\(shared)/defaults.json.lock", withDestinationPath: victim)
        let store = FileKeyValueStore(path: "\(shared)/defaults.json")
        #expect(throws: PersistenceError.self) { try store.writeObject(1, forKey: "k") }
        _ = try? store.readObject(forKey: "k")
        try untouched(victim, in: directory)
    }

    @Test("delete(path:filename:) through a link removes the link, never the file it points to")
    func deleteThroughLink() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (victim, shared) = try victim(in: directory)
        try FileManager.default.createSymbolicLink(atPath: "\(shared)/notes.json", withDestinationPath: victim)
        try FileManager.default.delete(path: shared, filename: "notes.json")
        #expect(!FileManager.default.fileExists(atPath: "\(shared)/notes.json"))
        try untouched(victim, in: directory)
    }

    @Test("an existing directory another user owns, or every user can write, is refused for writes")
    func foreignDirectories() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let foreign = directory.file("foreign")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        #expect(chown(foreign, Self.nobody, Self.nobody) == 0)
        let error = #expect(throws: PersistenceError.self) { try FileKeyValueStore(path: "\(foreign)/defaults.json").writeObject(1, forKey: "k") }
        #expect(error?.kind == .permissionDenied)
        #expect(error?.description.contains("belongs to user 65534") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: foreign).isEmpty)

        let open = directory.file("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
        #expect(chmod(open, 0o777) == 0)
        #expect(throws: PersistenceError.self) { try FileKeyValueStore(path: "\(open)/defaults.json").writeObject(1, forKey: "k") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty)
    }

    @Test("in memory: a directory every user can write is refused too")
    func inMemoryWorldWritable() throws {
        let files = InMemoryFileSystem()
        files.createDirectory(atPath: "/shared")
        files.setPermissions(0o777, atPath: "/shared")
        #expect(throws: PersistenceError.self) { try FileKeyValueStore(path: "/shared/defaults.json", fileSystem: files).writeObject(1, forKey: "k") }
        #expect(files.contentsOfDirectory(atPath: "/shared").isEmpty)
    }

    @Test("an atomic replace keeps the replaced file's mode and, as root, its owner")
    func keepsModeAndOwner() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let store = FileKeyValueStore(path: path)
        try store.writeObject(1, forKey: "k")
        #expect(try TemporaryDirectory.permissions(of: path) == 0o600, "a new file is private")
        #expect(chmod(path, 0o640) == 0)
        #expect(chown(path, Self.nobody, Self.nobody) == 0)
        try store.writeObject(2, forKey: "k")
        #expect(try TemporaryDirectory.permissions(of: path) == 0o640)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.ownerAccountID] as? NSNumber)?.uint32Value == Self.nobody)
        #expect((attributes[.groupOwnerAccountID] as? NSNumber)?.uint32Value == Self.nobody)
        #expect(try FileKeyValueStore(path: path).readObject(forKey: "k") as? Int == 2)
    }

    @Test("the lock is keyed by the file a link points to, so a process using the link and one using the target exclude each other")
    func lockKeyedByTarget() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("home"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("dotfiles"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("home/settings.json"), withDestinationPath: "../dotfiles/settings.json")
        let viaLink = FileKeyValueStore(path: directory.file("home/settings.json"))
        let direct = FileKeyValueStore(path: directory.file("dotfiles/settings.json"))
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        #expect(resolved(viaLink.lockPath) == resolved(direct.lockPath))
        #expect(viaLink.lockPath.hasSuffix("dotfiles/settings.json.lock"))
    }

    @Test("a failed directory flush after the rename reports, but doesn't fail, a write that is in place")
    func directoryFlushAfterRename() throws {
        let files = InMemoryFileSystem()
        files.fail(.syncDirectory, at: "/config", with: EIO)
        files.createDirectory(atPath: "/config")
        let store = FileKeyValueStore(path: "/config/defaults.json", fileSystem: files)
        let logs = try capturingLogs { try store.writeObject(1, forKey: "k") }
        #expect(logs.count == 1)
        #expect(logs.first?.contains("may not survive a power loss") == true)
        #expect(try FileKeyValueStore(path: "/config/defaults.json", fileSystem: files).readObject(forKey: "k") as? Int == 1)
    }

    @Test("a FIFO planted as the lock file is an error, never a hang")
    func lockFileFIFO() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(mkfifo(directory.file("defaults.json.lock"), 0o600) == 0)
        let store = FileKeyValueStore(path: directory.file("defaults.json"))
        #expect(throws: PersistenceError.self) { try store.writeObject(1, forKey: "k") }
        #expect(!FileManager.default.fileExists(atPath: directory.file("defaults.json")))
    }

    @Test("a directory another group can write is accepted and reported once per process")
    func groupWritableDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.file("group")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        #expect(chown(shared, 0, Self.nobody) == 0)
        #expect(chmod(shared, 0o770) == 0)
        let store = FileKeyValueStore(path: "\(shared)/defaults.json")
        let logs = try capturingLogs {
            try store.writeObject(1, forKey: "k")
            try store.writeObject(2, forKey: "k")
        }
        #expect(logs.count == 1)
        #expect(logs.first?.contains("writable by its group 65534") == true)
        #expect(try FileKeyValueStore(path: "\(shared)/defaults.json").readObject(forKey: "k") as? Int == 2)
    }
}
