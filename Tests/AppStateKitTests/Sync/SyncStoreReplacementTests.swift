import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

fileprivate extension Application {
    var replacedFlag: SyncState<Int> { syncState(initial: 0, feature: "Replace", id: "flag") }
    var replacedOther: SyncState<String> { syncState(initial: "initial", feature: "Replace", id: "other") }
}

/// A store whose data was replaced behind its back (a restore, a deleted file) says so with
/// `SyncChange.replaced`, and SyncState caches take it whatever the versions.
@Suite("SyncState replacements", .isolatedApplication, .reportsAsDiagnostics)
struct SyncStoreReplacementTests {
    @Test("a replacement with a lower version replaces the cached value; a key missing from it reads as its initial value")
    func cachesTakeReplacements() async throws {
        let store = installStore()
        for value in 1...6 {
            _ = try await store.write(try json(value), forKey: "Replace/flag")
        }
        _ = try await store.write(try json("kept?"), forKey: "Replace/other")
        let flag = Application.syncState(\.replacedFlag)
        let other = Application.syncState(\.replacedOther)
        #expect(flag.value == 6)
        #expect(other.value == "kept?")
        try store.replaceContents(with: [SyncRecord(key: "Replace/flag", value: try json(2), version: 1)])
        #expect(await eventually { flag.value == 2 })
        #expect(await eventually { other.value == "initial" })
        // Versions compare again from the replacement on.
        var writable = flag
        writable.value = 3
        #expect(try await flag.read() == 3)
        #expect(try store.cachedRecord(forKey: "Replace/flag")?.version == 2)
    }

    @Test("the in-memory store's feeds: changeFeed says replaced, its records view gets the records, statuses end with stopped")
    func inMemoryFeeds() async throws {
        let store = InMemorySyncStore()
        var changes = store.changeFeed().makeAsyncIterator()
        var records = SyncChange.records(of: store.changeFeed()).makeAsyncIterator()
        _ = try await store.write(try json(1), forKey: "k")
        #expect(await changes.next() == .changed(SyncRecord(key: "k", value: try json(1), version: 1)))
        #expect(await records.next()?.version == 1)
        try store.replaceContents(with: [])
        #expect(await changes.next() == .replaced([]))
        var statuses = store.statusUpdates().makeAsyncIterator()
        #expect(await statuses.next()?.isLive == true)
        store.shutDown()
        #expect(await statuses.next() == .stopped)
        #expect(await statuses.next() == nil)
        #expect(await changes.next() == nil)
    }

    @Test("local store: deleting the file while a SyncState follows it, then writing from a fresh store, reaches the SyncState")
    func localFileDeletedAndRewritten() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        Application.promote(\.syncStore, with: LocalSyncStore(path: path))
        let flag = Application.syncState(\.replacedFlag)
        for value in 1...6 {
            try await flag.write(value)
        }
        #expect(flag.value == 6)
        try FileManager.default.removeItem(atPath: path)
        // Deleting the file resets the values.
        #expect(await eventually { flag.value == 0 })
        // A fresh process (a new store instance knows no earlier versions) writes version 1.
        let fresh = LocalSyncStore(path: path)
        let record = try await fresh.write(try json(42), forKey: "Replace/flag")
        #expect(record.version == 1)
        #expect(await eventually { flag.value == 42 })
    }

    @Test("local store: an older copy of the file put back (same epoch, lower sequence) is taken as it is")
    func localOlderCopyPutBack() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let store = LocalSyncStore(path: path)
        _ = try await store.write(try json(1), forKey: "Replace/flag")
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try await store.write(try json(2), forKey: "Replace/flag")
        _ = try await store.write(try json("new"), forKey: "Replace/other")
        var feed = store.changeFeed().makeAsyncIterator()
        try backup.write(to: URL(fileURLWithPath: path), options: .atomic)
        let change = await feed.next()
        #expect(change == .replaced([SyncRecord(key: "Replace/flag", value: try json(1), version: 1)]))
    }

    @Test("local store: a file that can't be decoded is not a replacement; the next write's new file is")
    func localCorruptFileIsNotAReplacement() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let store = LocalSyncStore(path: path)
        _ = try await store.write(try json(1), forKey: "Replace/flag")
        var feed = store.changeFeed().makeAsyncIterator()
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        let writer = LocalSyncStore(path: path)
        #expect(throws: SyncStoreError.self) { try writer.cachedRecord(forKey: "Replace/flag") }
        let written = try await writer.write(try json(7), forKey: "Replace/other")
        // The first change the reader sees is the new file, whole: nothing for the corrupt one.
        #expect(await feed.next() == .replaced([written]))
    }

    @Test("the file's epoch is written, kept by later commits, and new after the file is deleted")
    func epochLifecycle() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let store = LocalSyncStore(path: path)
        func epoch() throws -> String? {
            try LocalSyncFile.decode(Data(contentsOf: URL(fileURLWithPath: path))).epoch
        }
        _ = try await store.write(try json(1), forKey: "k")
        let first = try #require(try epoch())
        _ = try await store.write(try json(2), forKey: "k")
        #expect(try epoch() == first)
        try FileManager.default.removeItem(atPath: path)
        _ = try await store.write(try json(3), forKey: "k")
        #expect(try epoch() != first)
    }

    @Test("the conformance suite's replacement check passes for the in-memory store and the local store (a new file behind its back)")
    func conformanceReplacements() async throws {
        let memory = InMemorySyncStore()
        try await SyncStoreConformance(store: memory) { prefix, records in
            let others = try await memory.snapshot().filter { !$0.key.hasPrefix(prefix) }
            try memory.replaceContents(with: others + records)
        }.run(.replacementsAreAuthoritative)

        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        try await SyncStoreConformance(store: LocalSyncStore(path: path)) { _, records in
            var file = LocalSyncFile()
            file.epoch = LocalSyncFile.newEpoch()
            for record in records { file.slots[record.key] = .intact(record) }
            file.sequence = records.map(\.version).max() ?? 0
            try file.encoded().write(to: URL(fileURLWithPath: path), options: .atomic)
        }.run()
    }

    @Test("without replaceBackingStore, the replacement check is left out of run() and fails when run by name")
    func conformanceReplacementNeedsHook() async throws {
        try await SyncStoreConformance(store: InMemorySyncStore()).run()
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await SyncStoreConformance(store: InMemorySyncStore()).run(.replacementsAreAuthoritative)
        }
        #expect(failure.failedChecks == ["replacementsAreAuthoritative"])
    }
}
