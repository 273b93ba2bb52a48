import AppStateKit
import AppStateKitTesting
import Foundation
import Observation
import Testing

fileprivate struct TestFlags: Codable, Sendable, Equatable {
    var newCheckout = false
    var limit = 10
}

fileprivate extension Application {
    var syncFlags: SyncState<TestFlags> { syncState(initial: TestFlags(), feature: "App", id: "flags") }
    var syncCounter: SyncState<Int> { syncState(initial: 0, feature: "Sync", id: "counter") }
    var syncNote: SyncState<String?> { syncState(feature: "Sync", id: "note") }
    var syncSlashFeature: SyncState<Int> { syncState(initial: 0, feature: "T/a", id: "b") }
    var syncSlashID: SyncState<Int> { syncState(initial: 0, feature: "T", id: "a/b") }
    var syncPercent: SyncState<Int> { syncState(initial: 0, feature: "T%2Fa", id: "b") }
}

fileprivate struct TestFlagsView {
    @SyncState(\.syncFlags) var flags
    @Slice(\.syncFlags, \.limit) var limit
}

@Suite("SyncState", .isolatedApplication, .reportsAsDiagnostics)
struct SyncStateTests {
    @Test("the initial value until something is written; a write is read back at once and reaches the store")
    func readYourWrites() async throws {
        let store = installStore()
        var flags = Application.syncState(\.syncFlags)
        #expect(flags.value == TestFlags())
        #expect(try store.cachedRecord(forKey: "App/flags") == nil)

        flags.value.newCheckout = true
        #expect(Application.syncState(\.syncFlags).value.newCheckout)
        #expect(await eventually { (try? store.cachedRecord(forKey: "App/flags"))??.value == (try? json(TestFlags(newCheckout: true))) })
    }

    @Test("write(_:) returns once the store committed the value")
    func writeWaitsForCommit() async throws {
        let store = installStore()
        try await Application.syncState(\.syncCounter).write(42)
        let record = try #require(try store.cachedRecord(forKey: "Sync/counter"))
        #expect(record.value == Data("42".utf8))
        #expect(record.version == 1)
        #expect(Application.syncState(\.syncCounter).value == 42)
    }

    @Test("a value another process commits reaches value, withObservationTracking and values(of:)")
    func pushedChange() async throws {
        let store = installStore()
        #expect(Application.syncState(\.syncCounter).value == 0)
        let counter = trackChanges { _ = Application.syncState(\.syncCounter).value }

        let values = Application.values(of: \.syncCounter)
        let seen = Task {
            var seen: [Int] = []
            for await value in values {
                seen.append(value)
                if value == 7 { break }
            }
            return seen
        }
        while Application.changeStreamCount(of: \.syncCounter) == 0 { await Task.yield() }

        _ = try await store.write(Data("7".utf8), forKey: "Sync/counter")   // as another process would

        #expect(await eventually { Application.syncState(\.syncCounter).value == 7 })
        #expect(counter.value >= 1)
        let delivered = await withDeadline { await seen.value }
        #expect(delivered?.last == 7)
    }

    @Test("values(of:) mapped to one member follows a sync state as other processes change it")
    func memberStream() async throws {
        let store = installStore()
        let limits = Application.values(of: \.syncFlags).map(\.limit)
        let seen = Task {
            var seen: [Int] = []
            for await limit in limits {
                seen.append(limit)
                if limit == 3 { break }
            }
            return seen
        }
        while Application.changeStreamCount(of: \.syncFlags) == 0 { await Task.yield() }
        _ = try await store.write(try json(TestFlags(newCheckout: false, limit: 3)), forKey: "App/flags")
        let delivered = await withDeadline { await seen.value }
        #expect(delivered?.first == 10)
        #expect(delivered?.last == 3)
        #expect(await eventually { Application.changeStreamCount(of: \.syncFlags) == 0 })
    }

    @Test("the store's existing value is read on first access")
    func firstAccessFillsFromStore() async throws {
        let store = installStore()
        _ = try await store.write(try json(TestFlags(newCheckout: true, limit: 3)), forKey: "App/flags")
        #expect(Application.syncState(\.syncFlags).value == TestFlags(newCheckout: true, limit: 3))
    }

    @Test("optional: nil until set, assigning nil removes the value (a tombstone in the store)")
    func optionalRemoves() async throws {
        let store = installStore()
        var note = Application.syncState(\.syncNote)
        #expect(note.value == nil)
        try await note.write("hello")
        #expect(note.value == "hello")
        note.value = nil
        #expect(note.value == nil)
        _ = try await note.read()   // waits for the queued removal
        let record = try #require(try store.cachedRecord(forKey: "Sync/note"))
        #expect(record.value == nil)
        #expect(record.version == 2)
    }

    @Test("reset(), Application.reset(syncState:) and Application.reset(_:) remove the value")
    func resets() async throws {
        let store = installStore()
        try await Application.syncState(\.syncCounter).write(5)
        Application.reset(syncState: \.syncCounter)
        #expect(Application.syncState(\.syncCounter).value == 0)
        #expect(try await Application.syncState(\.syncCounter).read() == 0)
        #expect(try store.cachedRecord(forKey: "Sync/counter")?.value == nil)

        try await Application.syncState(\.syncCounter).write(6)
        Application.reset(\.syncCounter)
        #expect(try await Application.syncState(\.syncCounter).read() == 0)

        try await Application.syncState(\.syncCounter).write(7)
        Application.syncState(\.syncCounter).reset()
        #expect(try await Application.syncState(\.syncCounter).read() == 0)
    }

    @Test("the @SyncState wrapper, slices and @Slice read and write through the cache")
    func wrappersAndSlices() async throws {
        installStore()
        let view = TestFlagsView()
        view.flags = TestFlags(newCheckout: true, limit: 1)
        #expect(view.flags.newCheckout)
        #expect(view.limit == 1)
        view.limit = 20
        #expect(Application.syncState(\.syncFlags).value.limit == 20)

        var slice = Application.slice(\.syncFlags, \.newCheckout)
        slice.value = false
        #expect(Application.syncState(\.syncFlags).value == TestFlags(newCheckout: false, limit: 20))
        #expect(Application.state(\.syncFlags).value.limit == 20)
        #expect(try await Application.syncState(\.syncFlags).read() == TestFlags(newCheckout: false, limit: 20))
    }

    @Test("writes of the synchronous setter reach the store in the order they were made (superseded queued ones skipped)")
    func writeBehindOrder() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var counter = Application.syncState(\.syncCounter)
        store.pause(true)
        for value in 1...50 {
            counter.value = value
        }
        #expect(counter.value == 50)
        store.pause(false)
        #expect(try await counter.read() == 50)
        // A write still queued is replaced by the next one of the key (see
        // SyncWriteCoalescingTests): the store sees an increasing subsequence ending at 50.
        let committed = store.writes.compactMap { $0.value.flatMap { Int($0) } }
        #expect(committed.count == store.writes.count)
        #expect(committed == committed.sorted() && Set(committed).count == committed.count)
        #expect(committed.last == 50)
        #expect(try store.cachedRecord(forKey: "Sync/counter")?.version == Int64(committed.count))
    }

    @Test("write(_:) waits for earlier queued writes of the application and lands after them")
    func writeAfterQueued() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var counter = Application.syncState(\.syncCounter)
        store.pause(true)
        counter.value = 1
        let write = Task { try await Application.syncState(\.syncCounter).write(2) }
        #expect(await eventually { store.writes.count == 1 })
        store.pause(false)
        try await write.value
        #expect(store.writes.map(\.value) == ["1", "2"])
        #expect(counter.value == 2)
    }

    @Test("a write settling in the store doesn't notify observers again: the value didn't change")
    func settlingIsNotAChange() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        store.acknowledgeSlowly(true)   // the feed delivers the commit first
        var counter = Application.syncState(\.syncCounter)
        store.pause(true)
        counter.value = 1
        let watcher = trackChanges { _ = Application.syncState(\.syncCounter).value }
        store.pause(false)
        #expect(try await counter.read() == 1)   // the write and its feed record have settled
        #expect(watcher.value == 0)
    }

    @Test("read() fetches the store's value; refresh() updates the cache")
    func readAndRefresh() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        #expect(Application.syncState(\.syncCounter).value == 0)
        _ = try await store.inner.write(Data("3".utf8), forKey: "Sync/counter")
        #expect(try await Application.syncState(\.syncCounter).read() == 3)
        _ = try await store.inner.write(Data("4".utf8), forKey: "Sync/counter")
        try await Application.syncState(\.syncCounter).refresh()
        #expect(Application.syncState(\.syncCounter).value == 4)
    }

    @Test("store keys: readable feature/id, escaped when a part contains / or %, never ambiguous")
    func storeKeys() {
        #expect(Application.syncState(\.syncFlags).storeKey == "App/flags")
        let slashFeature = Application.syncState(\.syncSlashFeature).storeKey
        let slashID = Application.syncState(\.syncSlashID).storeKey
        let percent = Application.syncState(\.syncPercent).storeKey
        #expect(slashFeature == "T%2Fa/b")
        #expect(slashID == "T/a%2Fb")
        #expect(percent == "T%252Fa/b")
        #expect(Set([slashFeature, slashID, percent]).count == 3)
    }

    @Test("two declarations differing only in / placement keep separate values")
    func unambiguousKeysKeepValues() async throws {
        installStore()
        try await Application.syncState(\.syncSlashFeature).write(1)
        try await Application.syncState(\.syncSlashID).write(2)
        #expect(Application.syncState(\.syncSlashFeature).value == 1)
        #expect(Application.syncState(\.syncSlashID).value == 2)
    }

    @Test("Application.remove frees the entry; the next access refills from the store and follows its feed")
    func removeEntry() async throws {
        let store = installStore()
        try await Application.syncState(\.syncCounter).write(5)
        #expect(Application.remove(state: Application.state(\.syncCounter)))
        #expect(Application.syncState(\.syncCounter).value == 5)
        _ = try await store.write(Data("6".utf8), forKey: "Sync/counter")
        #expect(await eventually { Application.syncState(\.syncCounter).value == 6 })
    }

    @Test("description lists the entry with its kind, key and value")
    func description() async throws {
        installStore()
        try await Application.syncState(\.syncCounter).write(9)
        #expect(Application.description.contains("SyncState<Swift.Int> Sync.counter = 9"))
        #expect(Application.syncState(\.syncCounter).description == "SyncState<Int>(Sync/counter) = 9")
        #expect(Application.syncState(\.syncCounter).scope.name == "Sync")
    }

    @Test("a change pushed by the store fires withObservationTracking exactly when the value is read")
    func observationOnlyForReaders() async throws {
        let store = installStore()
        _ = Application.syncState(\.syncCounter).value
        _ = Application.syncState(\.syncFlags).value
        let counterWatcher = trackChanges { _ = Application.syncState(\.syncCounter).value }
        let flagsWatcher = trackChanges { _ = Application.syncState(\.syncFlags).value }
        _ = try await store.write(Data("1".utf8), forKey: "Sync/counter")
        #expect(await eventually { counterWatcher.value == 1 })
        #expect(flagsWatcher.value == 0)
    }
}
