import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// What the embedded store does when the disk says no, with failures injected through an
/// in-memory file system (never through file permissions, which don't stop root).
@Suite("LocalSyncStore I/O failures", .isolatedApplication, .reportsAsDiagnostics)
struct LocalSyncStoreIOFailureTests {
    let path = "/data/app/sync.json"

    @Test("a failing step of a commit fails it with an I/O error naming key and path; before the rename the file is unchanged", arguments: [
        (InMemoryFileSystem.Operation.lock, ENOLCK), (.create, EACCES), (.write, ENOSPC), (.sync, EIO), (.rename, EIO),
    ])
    func commitFails(operation: InMemoryFileSystem.Operation, code: Int32) async throws {
        let files = InMemoryFileSystem()
        let store = LocalSyncStore(path: path, fileSystem: files)
        let first = try await store.write(Data("1".utf8), forKey: "App/k")
        let before = files.contents(atPath: path)

        files.fail(operation, at: operation == .lock ? path + ".lock" : path, with: code)
        do {
            _ = try await store.compareAndSet(Data("2".utf8), forKey: "App/k", expectedVersion: first.version)
            Issue.record("expected an error")
        } catch let error as SyncStoreError {
            #expect(error.kind == .ioFailure)
            #expect(error.description.contains("\"App/k\"") && error.description.contains(path), "\(error)")
        }
        #expect(files.contents(atPath: path) == before)
        #expect(try store.cachedRecord(forKey: "App/k") == first)

        files.removeFailures()
        guard case .committed = try await store.compareAndSet(Data("2".utf8), forKey: "App/k", expectedVersion: first.version) else {
            Issue.record("expected the retry to commit")
            return
        }
    }

    @Test("when only the final directory flush fails, the write throws and the new file is in place (it may not survive a power loss)")
    func directoryFlushFails() async throws {
        let files = InMemoryFileSystem()
        let store = LocalSyncStore(path: path, fileSystem: files)
        _ = try await store.write(Data("1".utf8), forKey: "App/k")
        files.fail(.syncDirectory, at: "/data/app", with: EIO)
        await #expect(throws: SyncStoreError.self) { _ = try await store.write(Data("2".utf8), forKey: "App/k") }
        files.removeFailures()
        #expect(try LocalSyncStore(path: path, fileSystem: files).cachedRecord(forKey: "App/k")?.value == Data("2".utf8))
        #expect(try store.cachedRecord(forKey: "App/k")?.value == Data("2".utf8))
    }

    @Test("a file that can't be read fails reads with an I/O error naming the path, and reads work again once it can", arguments: [
        (InMemoryFileSystem.Operation.read, EIO), (.stat, EACCES),
    ])
    func readFails(operation: InMemoryFileSystem.Operation, code: Int32) async throws {
        let files = InMemoryFileSystem()
        let written = try await LocalSyncStore(path: path, fileSystem: files).write(Data("1".utf8), forKey: "App/k")
        let store = LocalSyncStore(path: path, fileSystem: files)
        files.fail(operation, at: path, with: code)
        do {
            _ = try store.cachedRecord(forKey: "App/k")
            Issue.record("expected an error")
        } catch let error as SyncStoreError {
            #expect(error.kind == .ioFailure)
            #expect(error.description.contains(path), "\(error)")
        }
        await #expect(throws: SyncStoreError.self) { _ = try await store.snapshot() }
        await #expect(throws: SyncStoreError.self) { _ = try await store.write(Data("2".utf8), forKey: "App/k") }
        files.removeFailures()
        #expect(try store.cachedRecord(forKey: "App/k") == written)
    }

    @Test("a corrupt file is copied aside and replaced in one rename: the store file never goes missing")
    func corruptFileIsReplacedWithoutRemovingIt() async throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: path, text: "{ not json")
        // Removing the store file would open a window in which a reader finds no file and
        // takes it as a deletion (every key back to its initial value).
        files.fail(.remove, at: path, with: EIO)
        let store = LocalSyncStore(path: path, fileSystem: files)
        let written = try await store.write(Data("1".utf8), forKey: "App/k")
        #expect(try store.cachedRecord(forKey: "App/k") == written)
        #expect(try LocalSyncStore(path: path, fileSystem: files).cachedRecord(forKey: "App/k") == written)
    }

    @Test("a corrupt file that can't be replaced is kept, and the write fails")
    func moveAsideFails() async throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: path, text: "{ not json")
        files.fail(.link, at: path, with: EIO)
        files.fail(.rename, at: path, with: EIO)
        let store = LocalSyncStore(path: path, fileSystem: files)
        await #expect(throws: SyncStoreError.self) { _ = try await store.write(Data("1".utf8), forKey: "App/k") }
        #expect(files.text(atPath: path) == "{ not json")
    }
}
