import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// A store that records the name of the thread each change ran on, over an in-memory store.
private final class ThreadRecordingDefaults: UserDefaultsManaging, @unchecked Sendable {
    // Safe: `threadNames` is only accessed while `lock` is held; `base` synchronises itself.
    private let base = InMemoryDefaults()
    private let lock = NSLock()
    private var threadNames: [String] = []

    var recordedThreadNames: [String] { lock.withLock { threadNames } }

    func object(forKey key: String) -> Any? { base.object(forKey: key) }
    func removeObject(forKey key: String) { record(); base.removeObject(forKey: key) }
    func set(_ value: Any?, forKey key: String) { record(); base.set(value, forKey: key) }

    private func record() {
        let name = (Thread.current.name ?? "")
        lock.withLock { threadNames.append(name) }
    }
}

private let recordingStore = ThreadRecordingDefaults()

private extension Application {
    var asyncRecorded: StoredState<Int> { storedState(initial: 0, feature: "Async", id: "recorded", store: recordingStore) }
    /// Through the application's `\.userDefaults` (an isolated application's in-memory store).
    var asyncDefault: StoredState<Int> { storedState(initial: 0, feature: "Async", id: "default") }
    var asyncOptional: StoredState<String?> { storedState(feature: "Async", id: "optional") }
    var asyncCounter: StoredState<Int> { storedState(initial: 0, feature: "Async", id: "counter") }
    var asyncNotes: FileState<[String]> { fileState(initial: [], path: "/fs", filename: "notes.json") }
}

/// One in-memory file system and a key-value store on it, per test.
private struct Files {
    let system = InMemoryFileSystem()
    var store: FileKeyValueStore { FileKeyValueStore(path: "/kv/defaults.json", fileSystem: system) }

    /// Runs `body` with `\.fileManager` the in-memory file system for the calling task only.
    func run<R>(_ body: () async throws -> R) async rethrows -> R {
        try await Application.withOverrides({ $0.override(\.fileManager, with: system) }, operation: body)
    }
}

private struct Stop: Error, Equatable {}

@Suite("Async durable writes (writeDurably, resetDurably, updateDurably)", .isolatedApplication)
struct AsyncWritesTests {
    @Test("StoredState.writeDurably: once the await returns, the store's file holds the value")
    func storedWriteIsOnDiskAfterAwait() async throws {
        let files = Files()
        let handle = Application().storedState(initial: 0, feature: "Async", id: "written", store: files.store)
        try await handle.writeDurably(42)
        #expect(try handle.read() == 42)
        // A store opened afresh on the same file reads what the write left there.
        #expect(try files.store.readObject(forKey: "Async/written") as? Int == 42)
    }

    @Test("FileState.writeDurably: the file holds the value once the await returns, in the task's overridden file manager")
    func fileWriteIsOnDiskAfterAwait() async throws {
        let files = Files()
        try await files.run {
            try await Application.fileState(\.asyncNotes).writeDurably(["a", "b"])
            #expect(try Application.fileState(\.asyncNotes).read() == ["a", "b"])
        }
        let data = try #require(files.system.contents(atPath: "/fs/notes.json"))
        let decoded = try JSONDecoder().decode([String].self, from: Data(base64Encoded: data) ?? data)
        #expect(decoded == ["a", "b"])
    }

    @Test("the blocking work runs on AppStateKit's own threads, not the calling task's")
    func runsOnLibraryThreads() async throws {
        let before = recordingStore.recordedThreadNames.count
        try await Application.storedState(\.asyncRecorded).writeDurably(1)
        try await Application.storedState(\.asyncRecorded).updateDurably { $0 += 1 }
        try await Application.storedState(\.asyncRecorded).resetDurably()
        let names = recordingStore.recordedThreadNames.dropFirst(before)
        #expect(!names.isEmpty)
        #expect(names.allSatisfy { $0 == BlockingIOPool.threadName }, "\(names)")
    }

    @Test("a failed StoredState.writeDurably throws the error naming the key and the store's path, and changes nothing")
    func storedWriteErrorNamesKeyAndPath() async throws {
        let files = Files()
        let handle = Application().storedState(initial: 0, feature: "Async", id: "full", store: files.store)
        try await handle.writeDurably(1)
        files.system.fail(.write, at: "/kv", with: ENOSPC)
        await #expect {
            try await handle.writeDurably(2)
        } throws: { error in
            String(describing: error) == #"disk full for key "Async/full" in /kv/defaults.json: write failed (ENOSPC)"#
        }
        files.system.removeFailures()
        #expect(try files.store.readObject(forKey: "Async/full") as? Int == 1)
    }

    @Test("a failed FileState.writeDurably throws the error naming the file's path, and leaves the file as it was")
    func fileWriteErrorNamesPath() async throws {
        let files = Files()
        try await files.run {
            try await Application.fileState(\.asyncNotes).writeDurably(["kept"])
            files.system.fail(.write, at: "/fs", with: ENOSPC)
            await #expect(throws: PersistenceError(.diskFull, subject: "/fs/notes.json", detail: "write failed (ENOSPC)")) {
                try await Application.fileState(\.asyncNotes).writeDurably(["lost"])
            }
            files.system.removeFailures()
            #expect(try Application.fileState(\.asyncNotes).read() == ["kept"])
        }
    }

    @Test("resetDurably removes the value (reads return the initial value) and throws on failure instead of reporting")
    func resetRemovesAndThrows() async throws {
        let files = Files()
        let handle = Application().storedState(initial: 7, feature: "Async", id: "reset", store: files.store)
        try await handle.writeDurably(8)
        try await handle.resetDurably()
        #expect(try handle.read() == 7)
        #expect(try files.store.readObject(forKey: "Async/reset") == nil)

        try await handle.writeDurably(9)
        files.system.fail(.write, at: "/kv", with: ENOSPC)
        await #expect(throws: PersistenceError.self) { try await handle.resetDurably() }
        files.system.removeFailures()
        #expect(try handle.read() == 9)

        try await files.run {
            try await Application.fileState(\.asyncNotes).writeDurably(["x"])
            try await Application.fileState(\.asyncNotes).resetDurably()
            #expect(try Application.fileState(\.asyncNotes).read() == [])
        }
        #expect(!files.system.itemExists(atPath: "/fs/notes.json"))
    }

    @Test("writeDurably(nil) on an optional removes the stored value, as assigning nil does")
    func writingNilRemoves() async throws {
        try await Application.storedState(\.asyncOptional).writeDurably("set")
        #expect(Application.storedState(\.asyncOptional).value == "set")
        try await Application.storedState(\.asyncOptional).writeDurably(nil)
        #expect(Application.storedState(\.asyncOptional).value == nil)
    }

    @Test("updateDurably is atomic: 8 tasks × 25 increments count to 200, and it returns body's result")
    func updateIsAtomic() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<25 { try await Application.storedState(\.asyncCounter).updateDurably { $0 += 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(Application.storedState(\.asyncCounter).value == 200)
        let result = try await Application.storedState(\.asyncCounter).updateDurably { value -> String in
            value += 1
            return "now \(value)"
        }
        #expect(result == "now 201")
    }

    @Test("updateDurably writes nothing when body throws, and rethrows body's error")
    func updateBodyErrorWritesNothing() async throws {
        let files = Files()
        try await files.run {
            try await Application.fileState(\.asyncNotes).writeDurably(["before"])
            await #expect(throws: Stop()) {
                try await Application.fileState(\.asyncNotes).updateDurably { notes in
                    notes.append("after")
                    throw Stop()
                }
            }
            #expect(try Application.fileState(\.asyncNotes).read() == ["before"])
            try await Application.fileState(\.asyncNotes).updateDurably { $0.append("after") }
            #expect(try Application.fileState(\.asyncNotes).read() == ["before", "after"])
        }
    }

    @Test("a handle taken in an isolation scope writes that scope's application after the scope, never the caller's")
    func handleKeepsItsApplication() async throws {
        try await Application.storedState(\.asyncDefault).writeDurably(1)
        let inner = Application.withIsolatedApplication {
            Application.storedState(\.asyncDefault)
        }
        try await inner.writeDurably(2)
        #expect(try inner.read() == 2)
        // The test's own (isolated) application still holds its value.
        #expect(Application.storedState(\.asyncDefault).value == 1)
    }

    @Test("the write resolves the store inside the calling task's scopes: a withOverrides of \\.userDefaults applies")
    func scopesAreCarriedToThePool() async throws {
        let scoped = InMemoryDefaults()
        try await Application.withOverrides({ $0.override(\.userDefaults, with: scoped) }) {
            try await Application.storedState(\.asyncDefault).writeDurably(5)
        }
        #expect(scoped.object(forKey: "Async/default") as? Int == 5)
        #expect(Application.storedState(\.asyncDefault).value == 0)
    }

    @Test("cancellation neither skips nor interrupts a durable write: a cancelled task's write completes and is acknowledged")
    func cancelledTaskStillWrites() async throws {
        let files = Files()
        let handle = Application().storedState(initial: 0, feature: "Async", id: "cancelled", store: files.store)
        let started = AsyncStream<Void>.makeStream()
        let task = Task {
            // Wait until cancelled, so the write is made by a cancelled task.
            started.continuation.yield()
            while !Task.isCancelled { await Task.yield() }
            try await handle.writeDurably(3)
            return Task.isCancelled
        }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        #expect(try await task.value == true)
        #expect(try files.store.readObject(forKey: "Async/cancelled") as? Int == 3)
    }
}
