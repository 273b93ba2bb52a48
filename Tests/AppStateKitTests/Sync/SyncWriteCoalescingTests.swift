import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

fileprivate extension Application {
    var coalescedCounter: SyncState<Int> { syncState(initial: 0, feature: "Coalesce", id: "counter") }
    var coalescedOther: SyncState<Int> { syncState(initial: 0, feature: "Coalesce", id: "other") }
}

/// The setter's write-behind queue merges a write into its key's last queued, not-yet-started
/// setter write, which then waits behind every write queued before the newest value. Each test holds the first
/// write inside the store (`ScriptedSyncStore.pause`), queues behind it, then releases: the
/// store's log of received writes is its commit sequence (it commits one at a time, in order).
@Suite("SyncState write coalescing", .isolatedApplication)
struct SyncWriteCoalescingTests {
    @Test("1,000 setter writes queued behind a held commit are committed as one write of the last value")
    func burstCommitsNewestValue() async throws {
        let errors = collectErrors()
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var counter = Application.syncState(\.coalescedCounter)
        store.pause(true)
        counter.value = 0
        #expect(await eventually { store.writes.count == 1 })   // the first write has started
        for _ in 0..<1_000 {
            counter.value += 1
        }
        #expect(counter.value == 1_000)   // read-your-writes while everything waits
        store.pause(false)
        #expect(try await counter.read() == 1_000)
        // The write in progress, then one write replacing the 1,000 queued behind it.
        #expect(store.writes.map(\.value) == ["0", "1000"])
        #expect(try store.cachedRecord(forKey: "Coalesce/counter")?.version == 2)
        #expect(errors.messages.isEmpty, "\(errors.messages)")
    }

    @Test("K=1, J=5, K=2 queued behind a held commit: K=2 replaces K=1 and is committed after J, so K=1 is skipped and nothing is reordered")
    func mergeMovesBehindAnotherKey() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var k = Application.syncState(\.coalescedCounter)
        var j = Application.syncState(\.coalescedOther)
        store.pause(true)
        k.value = 0
        #expect(await eventually { store.writes.count == 1 })
        k.value = 1
        j.value = 5
        k.value = 2
        k.value = 3
        #expect(Application.pendingSyncWrites == 3)   // K=0 in flight, J=5, K=3: one per key behind it
        store.pause(false)
        #expect(try await k.read() == 3)
        let commits = store.writes.map { "\($0.key)=\($0.value ?? "nil")" }
        #expect(commits == ["Coalesce/counter=0", "Coalesce/other=5", "Coalesce/counter=3"])
        #expect(j.value == 5)
    }

    @Test("an awaited write(_:) between setter writes is committed with its own value before its caller resumes")
    func awaitedWriteIsNeverMerged() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var counter = Application.syncState(\.coalescedCounter)
        store.pause(true)
        counter.value = 0
        #expect(await eventually { store.writes.count == 1 })
        counter.value = 1
        let resumed = Locked<Bool>(false)
        let write = Task {
            try await Application.syncState(\.coalescedCounter).write(2)
            resumed.withLock { $0 = true }
            // What the store holds when the caller resumes.
            return (store.writes.map(\.value), try store.inner.cachedRecord(forKey: "Coalesce/counter")?.version ?? 0)
        }
        // write(_:) shows its value and queues under the modification lock the setter takes
        // too, so the next assignment is queued behind it.
        #expect(await eventually { counter.value == 2 })
        counter.value = 3
        counter.value = 4
        #expect(resumed.withLock { $0 } == false)   // the store holds every write back
        store.pause(false)
        let (seenByCaller, versionSeenByCaller) = try await write.value
        #expect(Array(seenByCaller.prefix(3)) == ["0", "1", "2"])
        #expect(versionSeenByCaller >= 3)   // versions 1 (0), 2 (1), 3 (2)
        #expect(try await counter.read() == 4)
        // 1 isn't replaced by the awaited 2, and 3 isn't merged into it; 4 replaces 3.
        #expect(store.writes.map(\.value) == ["0", "1", "2", "4"])
    }

    @Test("a merged write that fails is reported once, naming the key, and the value converges to the store's")
    func mergedFailureReportedOnce() async throws {
        let errors = collectErrors()
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        _ = try await store.inner.write(Data("5".utf8), forKey: "Coalesce/counter")
        var counter = Application.syncState(\.coalescedCounter)
        #expect(counter.value == 5)
        store.pause(true)
        store.failWrites(true)
        counter.value = 6
        #expect(await eventually { store.writes.count == 1 })
        for value in 7...100 {
            counter.value = value
        }
        store.pause(false)
        #expect(await eventually { counter.value == 5 })
        store.failWrites(false)
        #expect(try await counter.read() == 5)   // every queued write (and its report) has settled
        #expect(store.writes.map(\.value) == ["6", "100"])
        let reports = errors.messages.filter { $0.contains("\"Coalesce/counter\" could not be written") }
        #expect(reports.count == 2, "\(errors.messages)")   // the held write and the merged one
    }

    @Test("reset() replaces an assignment still queued: the key is removed, the assignment never committed")
    func resetReplacesQueuedAssignment() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var counter = Application.syncState(\.coalescedCounter)
        store.pause(true)
        counter.value = 1
        #expect(await eventually { store.writes.count == 1 })
        counter.value = 2
        counter.reset()
        #expect(counter.value == 0)
        store.pause(false)
        #expect(try await counter.read() == 0)
        #expect(store.writes.map(\.value) == ["1", nil])
    }
}
