import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

fileprivate extension Application {
    var statusFlag: SyncState<Bool> { syncState(initial: false, feature: "Status", id: "flag") }
}

/// Store status as an AsyncSequence, readiness, and a quiet end on a store's normal shutdown.
@Suite("SyncStore status and readiness", .isolatedApplication, .reportsAsDiagnostics)
struct SyncStoreStatusTests {
    @Test("waitUntilReady returns for a running in-memory store and throws shutDown once it stopped")
    func inMemoryReadiness() async throws {
        let store = InMemorySyncStore()
        try await store.waitUntilReady(timeout: .seconds(60))
        store.shutDown()
        await #expect(throws: SyncStoreError.self) { try await store.waitUntilReady(timeout: .seconds(60)) }
    }

    @Test("the local store is live once its file reads (a missing file is an empty store)")
    func localReadiness() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = LocalSyncStore(path: directory.file("sync.json"))
        try await store.waitUntilReady(timeout: .seconds(60))
        var statuses = store.statusUpdates().makeAsyncIterator()
        #expect(await statuses.next()?.isLive == true)
    }

    @Test("a local store whose file can't be read is not ready: waitUntilReady throws unavailable with the reason; it is live once the file reads")
    func localUnreadable() async throws {
        let fileSystem = InMemoryFileSystem()
        let store = LocalSyncStore(path: "/sync/sync.json", changeDetection: .polling(every: .milliseconds(5)), fileSystem: fileSystem)
        _ = try await store.write(Data("1".utf8), forKey: "k")
        let unreadable = LocalSyncStore(path: "/sync/sync.json", changeDetection: .polling(every: .milliseconds(5)), fileSystem: fileSystem)
        fileSystem.fail(.read, at: "/sync/sync.json", with: EIO)
        do {
            try await unreadable.waitUntilReady(timeout: .milliseconds(50))
            Issue.record("ready although its file can't be read")
        } catch let error as SyncStoreError {
            #expect(error.kind == .unavailable)
            #expect(error.description.contains("cannot read /sync/sync.json"), "\(error)")
        }
        var statuses = unreadable.statusUpdates().makeAsyncIterator()
        guard case .unavailable = await statuses.next() else {
            Issue.record("expected unavailable")
            return
        }
        fileSystem.removeFailures()
        #expect(await statuses.next()?.isLive == true)
    }

    @Test("a store that stops normally ends its feed without an error report (debug only)")
    func normalStopIsQuiet() async throws {
        let errors = collectErrors()
        let store = installStore()
        var flag = Application.syncState(\.statusFlag)
        flag.value = true
        try await Application.flushSyncWrites(timeout: .seconds(300))
        store.shutDown()
        let coordinator = SyncCoordinator.of(Application.current.registry)
        #expect(await eventually { coordinator.feedEnd == .stopped })
        #expect(errors.messages.isEmpty, "\(errors.messages)")
    }

    @Test("a store whose feed ends while it says it is live is reported as an error")
    func unexpectedEndIsReported() async throws {
        let errors = collectErrors()
        Application.promote(\.syncStore, with: EndingFeedStore())
        _ = Application.syncState(\.statusFlag).value
        let coordinator = SyncCoordinator.of(Application.current.registry)
        #expect(await eventually { coordinator.feedEnd == .unexpectedly })
        #expect(errors.messages.contains { $0.contains("change feed ended while the store is live") }, "\(errors.messages)")
    }
}

/// A store whose change feed ends at once while its status stays live.
private struct EndingFeedStore: SyncStore {
    let base = InMemorySyncStore()
    func cachedRecord(forKey key: String) throws -> SyncRecord? { try base.cachedRecord(forKey: key) }
    func fetchRecord(forKey key: String) async throws -> SyncRecord? { try await base.fetchRecord(forKey: key) }
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord { try await base.write(value, forKey: key) }
    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try await base.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }
    func snapshot() async throws -> [SyncRecord] { try await base.snapshot() }
    func changeFeed() -> AsyncStream<SyncChange> { AsyncStream { $0.finish() } }
}
