import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

fileprivate extension Application {
    var retriedFlag: SyncState<Bool> { syncState(initial: false, feature: "Retry", id: "maintenance") }
    var retriedOther: SyncState<Int> { syncState(initial: 0, feature: "Retry", id: "other") }
}

/// Setter writes are never dropped silently: transient failures are retried until the store
/// takes them, the newest value per key wins, one failing key holds no other back, and
/// `flushSyncWrites(timeout:)` says which keys were not committed. Faults come from
/// `ScriptedSyncStore` (fails the next N writes, or every write of chosen keys).
@Suite("SyncState write retries", .isolatedApplication, .reportsAsDiagnostics)
struct SyncWriteRetryTests {
    @Test("a setter write failing 3 times with `unavailable` is retried and committed; the streak is reported once")
    func transientFailureIsRetried() async throws {
        let errors = collectErrors()
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var flag = Application.syncState(\.retriedFlag)
        store.failNextWrites(3, kind: .unavailable)
        flag.value = true
        try await Application.flushSyncWrites(timeout: .seconds(300))
        #expect(try store.inner.cachedRecord(forKey: "Retry/maintenance")?.value == Data("true".utf8))
        #expect(store.writes.map(\.value) == ["true", "true", "true", "true"])
        #expect(flag.value == true)   // never reverted
        let reports = errors.messages.filter { $0.contains("\"Retry/maintenance\" could not be written") }
        #expect(reports.count == 1, "\(errors.messages)")
        #expect(reports.first?.contains("retried until the store accepts it") == true)
        #expect(Application.pendingSyncWrites == 0)
    }

    @Test("while the store is down, 1,000 assignments to 2 keys wait as 2 values; the newest of each is committed when it is back")
    func newestValueWinsAndQueueIsBounded() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var flag = Application.syncState(\.retriedFlag)
        var other = Application.syncState(\.retriedOther)
        store.failWrites(true, kind: .unavailable)
        flag.value = true
        #expect(await eventually { !store.writes.isEmpty })   // attempted, failed, parked
        for value in 1...999 {
            other.value = value
            flag.value = value.isMultiple(of: 2)
        }
        // A value queued behind an attempt in flight replaces the failed one when it fails.
        #expect(await eventually { Application.pendingSyncWrites == 2 })
        #expect(Application.pendingSyncWriteKeys == ["Retry/maintenance", "Retry/other"])
        store.failWrites(false)
        try await Application.flushSyncWrites(timeout: .seconds(300))
        #expect(try store.inner.cachedRecord(forKey: "Retry/other")?.value == Data("999".utf8))
        #expect(try store.inner.cachedRecord(forKey: "Retry/maintenance")?.value == Data("false".utf8))
        #expect(Application.pendingSyncWrites == 0)
        #expect(other.value == 999)
    }

    @Test("a key whose writes keep failing holds no other key back")
    func stuckKeyHoldsNobody() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var flag = Application.syncState(\.retriedFlag)
        var other = Application.syncState(\.retriedOther)
        store.failWrites(forKey: "Retry/maintenance", true)
        flag.value = true
        other.value = 5
        #expect(await eventually { (try? store.inner.cachedRecord(forKey: "Retry/other"))?.value == Data("5".utf8) })
        #expect(Application.pendingSyncWriteKeys == ["Retry/maintenance"])
        store.failWrites(forKey: "Retry/maintenance", false)
        try await Application.flushSyncWrites(timeout: .seconds(300))
        #expect(try store.inner.cachedRecord(forKey: "Retry/maintenance")?.value == Data("true".utf8))
    }

    @Test("flushSyncWrites throws SyncFlushError naming the keys still pending at the timeout, and they are kept")
    func flushTimesOutNamingKeys() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var flag = Application.syncState(\.retriedFlag)
        store.failWrites(true, kind: .unavailable)
        flag.value = true
        await #expect(throws: SyncFlushError(keys: ["Retry/maintenance"], timedOut: true)) {
            try await Application.flushSyncWrites(timeout: .milliseconds(50))
        }
        #expect(Application.pendingSyncWriteKeys == ["Retry/maintenance"])
        store.failWrites(false)
        try await Application.flushSyncWrites(timeout: .seconds(300))
        #expect(try store.inner.cachedRecord(forKey: "Retry/maintenance")?.value == Data("true".utf8))
    }

    @Test("flushSyncWrites(to:) waits for writes to that store only")
    func flushToOneStore() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var flag = Application.syncState(\.retriedFlag)
        store.failNextWrites(2, kind: .unavailable)
        flag.value = true
        try await Application.flushSyncWrites(to: store, timeout: .seconds(60))
        #expect(try store.inner.cachedRecord(forKey: "Retry/maintenance")?.value == Data("true".utf8))
        // Nothing is queued for another store: returns at once.
        try await Application.flushSyncWrites(to: InMemorySyncStore(), timeout: .seconds(60))
    }

    @Test("an awaited write(_:) is not retried: its caller gets the transient error, and the value converges")
    func awaitedWriteThrows() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        store.failNextWrites(1, kind: .unavailable)
        await #expect(throws: SyncStoreError.self) {
            try await Application.syncState(\.retriedOther).write(3)
        }
        #expect(await eventually { Application.syncState(\.retriedOther).value == 0 })
        #expect(Application.pendingSyncWrites == 0)
    }

    @Test("only unavailable and I/O failures are transient")
    func transientKinds() {
        #expect(SyncStoreError(.unavailable, key: "k", detail: "").isTransient)
        #expect(SyncStoreError(.ioFailure, key: "k", detail: "").isTransient)
        for kind in [SyncStoreError.Kind.refused, .shutDown, .invalidKey, .valueTooLarge, .corruptRecord, .typeMismatch, .contention] {
            #expect(!SyncStoreError(kind, key: "k", detail: "").isTransient, "\(kind)")
        }
    }
}
