import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

extension Application {
    /// Declared like the child's `childSyncCounter` (feature "Child", id "counter").
    fileprivate var sharedCounter: SyncState<Int> { syncState(initial: 0, feature: "Child", id: "counter") }
}

/// SyncState itself (not only its store) across real processes on the embedded store: what a CLI
/// and a server on one machine see of each other.
@Suite("SyncState across processes (embedded store)", .serialized, .isolatedApplication)
struct SyncStateProcessTests {
    @Test("another process's assignment reaches this process's values(of:) stream and value")
    func streamSeesOtherProcess() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        Application.promote(\.syncStore, with: LocalSyncStore(path: path))
        #expect(Application.syncState(\.sharedCounter).value == 0)

        var iterator = Application.values(of: \.sharedCounter).makeAsyncIterator()
        #expect(await iterator.next() == 0)
        let child = try PersistenceChild.start(["sync-state-set", path, "42"])
        #expect(String(decoding: child.read(), as: UTF8.self) == "set\n")
        #expect(child.waitForExit())
        #expect(child.process.terminationStatus == 0)

        // Bounded: a feed that never delivers fails the test instead of hanging the suite.
        let seen = await firstValue(equalTo: 42, from: iterator, within: hangLimit)
        #expect(seen == 42, "the child's write never reached this process's stream")
        #expect(Application.syncState(\.sharedCounter).value == 42)
    }

    @Test("sync.json deleted while this process follows it, then a fresh process's assignment (version 1) reaches this process")
    func deletedFileThenFreshProcess() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        Application.promote(\.syncStore, with: LocalSyncStore(path: path))
        let counter = Application.syncState(\.sharedCounter)
        for value in 1...6 {
            try await counter.write(value)
        }
        #expect(counter.value == 6)
        try FileManager.default.removeItem(atPath: path)
        let child = try PersistenceChild.start(["sync-state-set", path, "3"])
        #expect(String(decoding: child.read(), as: UTF8.self) == "set\n")
        #expect(child.waitForExit())
        #expect(child.process.terminationStatus == 0)
        // The fresh process knew no earlier versions: its file starts again at 1, in a new epoch.
        #expect(try LocalSyncStore(path: path).cachedRecord(forKey: "Child/counter")?.version == 1)
        #expect(await eventually { counter.value == 3 }, "the fresh process's value never replaced version 6")
    }

    @Test("an assignment just before the process exits is committed: the exit waits for queued writes")
    func assignmentBeforeExitIsCommitted() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let child = try PersistenceChild.start(["sync-state-set-exit", path, "7"])
        #expect(String(decoding: child.read(), as: UTF8.self) == "set\n")
        #expect(child.waitForExit())
        #expect(child.process.terminationStatus == 0)
        let record = try #require(try LocalSyncStore(path: path).cachedRecord(forKey: "Child/counter"))
        #expect(record.value.map { String(decoding: $0, as: UTF8.self) } == "7")
    }

    @Test("3,000 assignments in a loop just before the process exits: the store ends at 3,000, nothing reported lost")
    func burstBeforeExitIsCommitted() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let child = try PersistenceChild.start(["sync-state-burst-exit", path, "3000"], capturingErrors: true)
        #expect(String(decoding: child.read(), as: UTF8.self) == "set\n")
        #expect(child.waitForExit())
        #expect(child.process.terminationStatus == 0)
        let errors = String(decoding: try #require(child.errors).readDataToEndOfFile(), as: UTF8.self)
        #expect(errors.isEmpty, "\(errors)")
        let record = try #require(try LocalSyncStore(path: path).cachedRecord(forKey: "Child/counter"))
        #expect(record.value.map { String(decoding: $0, as: UTF8.self) } == "3000")
    }

    @Test("a write still queued when the exit stops waiting is reported with its key, not dropped silently")
    func unfinishedWriteAtExitIsReported() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let child = try PersistenceChild.start(["sync-state-set-stuck", directory.file("unused"), "9"], capturingErrors: true)
        #expect(String(decoding: child.read(), as: UTF8.self) == "set\n")
        #expect(child.waitForExit())
        #expect(child.process.terminationStatus == 0)
        let errors = String(decoding: try #require(child.errors).readDataToEndOfFile(), as: UTF8.self)
        #expect(errors.contains("SyncState writes of \"Child/counter\" not committed"), "\(errors)")
    }

    @Test("3 processes × 100 SyncState updates, plus 100 in this process, end at exactly 400")
    func fleetAtomicUpdate() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        Application.promote(\.syncStore, with: LocalSyncStore(path: path))

        let children = try (0..<3).map { _ in try PersistenceChild.start(["sync-state-increment", path, "100"]) }
        for _ in 0..<100 {
            try await Application.syncState(\.sharedCounter).update { $0 += 1 }
        }
        for child in children {
            let said = String(decoding: child.read(), as: UTF8.self)
            #expect(said.hasPrefix("done "), "\(said)")
            #expect(child.waitForExit())
            #expect(child.process.terminationStatus == 0)
        }
        #expect(try await Application.syncState(\.sharedCounter).read() == 400)
        let record = try #require(try LocalSyncStore(path: path).cachedRecord(forKey: "Child/counter"))
        #expect(record.value.map { String(decoding: $0, as: UTF8.self) } == "400")
    }
}

/// Reads `iterator` until it yields `expected`, or gives up after `limit` and returns `nil`.
private func firstValue(
    equalTo expected: Int,
    from iterator: Application.Values<Int>.AsyncIterator,
    within limit: Duration
) async -> Int? {
    await withTaskGroup(of: Int?.self) { group in
        group.addTask {
            var iterator = iterator
            while let value = await iterator.next() {
                if value == expected { return value }
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
