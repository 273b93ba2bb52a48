import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitSync
import AppStateKitTesting

fileprivate extension Application {
    var waitedFlag: SyncState<Bool> { syncState(initial: false, feature: "Wait", id: "flag") }
}

/// Every wait on the sync layer that a user can call, and that the flush tests don't cover,
/// ends with `CancellationError` when its task is cancelled. Each would otherwise last an hour
/// (a held write, an hour-long timeout); `withDeadline` is only the safety net.
@Suite("Sync waits end on cancellation", .isolatedApplication, .reportsAsDiagnostics)
struct SyncWaitCancellationTests {
    @Test("cancelling an awaited SyncState write(_:) queued behind a held write ends it with CancellationError; the write stays queued and commits later")
    func cancelledAwaitedWrite() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        store.pause(true)
        var flag = Application.syncState(\.waitedFlag)
        flag.value = true
        #expect(await eventually { !store.writes.isEmpty })   // sent, and held by the store
        let handle = flag
        let write = Task { try await handle.write(false) }
        for _ in 0..<10 { await Task.yield() }
        write.cancel()
        let result = try #require(await withDeadline { await write.result }, "the cancelled write was still waiting after \(hangLimit)")
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(flag.value == false)
        store.pause(false)
        try await Application.flushSyncWrites(timeout: .seconds(60))
        #expect(store.writes.map(\.value) == ["true", "false"])
    }

    @Test("cancelling SyncState.resetDurably() queued behind a held write ends it with CancellationError")
    func cancelledRemove() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        store.pause(true)
        defer { store.pause(false) }
        var flag = Application.syncState(\.waitedFlag)
        flag.value = true
        #expect(await eventually { !store.writes.isEmpty })
        let remove = Task { try await Application.syncState(\.waitedFlag).resetDurably() }
        for _ in 0..<10 { await Task.yield() }
        remove.cancel()
        let result = try #require(await withDeadline { await remove.result }, "the cancelled removal was still waiting after \(hangLimit)")
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("cancelling waitUntilReady(timeout:) on a store that is not ready ends it with CancellationError", arguments: [false, true])
    func cancelledReadinessWait(local: Bool) async throws {
        let store: any SyncStore = local
            ? LocalSyncStore(path: "/data/wait/sync.json", fileSystem: Self.undecodableFile())
            : { let store = ScriptedSyncStore(); store.reportNeverReady(); return store }()
        let wait = Task { try await store.waitUntilReady(timeout: .seconds(3600)) }
        for _ in 0..<10 { await Task.yield() }
        wait.cancel()
        let result = try #require(await withDeadline { await wait.result }, "the cancelled readiness wait was still waiting after \(hangLimit)")
        #expect(throws: CancellationError.self) { try result.get() }
    }

    /// A file system whose store file can't be decoded, so a LocalSyncStore over it is never ready.
    private static func undecodableFile() -> InMemoryFileSystem {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/data/wait/sync.json", text: "not a sync store")
        return files
    }
}
