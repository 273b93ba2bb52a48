import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

fileprivate extension Application {
    var flushFlag: SyncState<Bool> { syncState(initial: false, feature: "Flush", id: "flag") }
}

/// Every wait on queued SyncState writes that a user can call ends when its task is cancelled.
/// The store holds each write back (`ScriptedSyncStore.pause`), so without cancellation the
/// waits below would last their hour-long timeouts; `withDeadline` is only the safety net.
@Suite("SyncState flush cancellation", .isolatedApplication)
struct SyncFlushCancellationTests {
    @Test("cancelling flushSyncWrites(timeout:) while the store holds the write ends it with CancellationError; the write stays queued")
    func cancelledFlush() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        store.pause(true)
        defer { store.pause(false) }
        var flag = Application.syncState(\.flushFlag)
        flag.value = true
        #expect(await eventually { !store.writes.isEmpty })   // sent, and held by the store
        let flush = Task { try await Application.flushSyncWrites(timeout: .seconds(3600)) }
        await letStart(flush)
        flush.cancel()
        let result = try #require(await withDeadline { await flush.result }, "the cancelled flush was still waiting after \(hangLimit)")
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(Application.pendingSyncWriteKeys == ["Flush/flag"])
    }

    @Test("a flush called from a task that is already cancelled returns at once with CancellationError")
    func flushInCancelledTask() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        store.pause(true)
        defer { store.pause(false) }
        var flag = Application.syncState(\.flushFlag)
        flag.value = true
        let flush = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await Application.flushSyncWrites(timeout: .seconds(3600))
        }
        let result = try #require(await withDeadline { await flush.result }, "the flush in a cancelled task was still waiting after \(hangLimit)")
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("cancelling flushSyncWrites(to:timeout:) and a SyncState read() waiting on a held write ends both with CancellationError")
    func cancelledStoreFlushAndRead() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        store.pause(true)
        defer { store.pause(false) }
        var flag = Application.syncState(\.flushFlag)
        flag.value = true
        #expect(await eventually { !store.writes.isEmpty })
        let flush = Task { try await Application.flushSyncWrites(to: store, timeout: .seconds(3600)) }
        let handle = flag
        let read = Task { try await handle.read() }
        await letStart(flush)
        flush.cancel()
        read.cancel()
        let flushed = try #require(await withDeadline { await flush.result }, "the cancelled flush(to:) was still waiting after \(hangLimit)")
        #expect(throws: CancellationError.self) { try flushed.get() }
        let readResult = try #require(await withDeadline { await read.result }, "the cancelled read() was still waiting after \(hangLimit)")
        #expect(throws: CancellationError.self) { try readResult.get() }
    }

    /// Gives `task` the chance to start waiting (it may also be cancelled before: both must end
    /// it). Nothing is asserted on time.
    private func letStart(_ task: Task<Void, any Error>) async {
        for _ in 0..<10 { await Task.yield() }
    }
}
