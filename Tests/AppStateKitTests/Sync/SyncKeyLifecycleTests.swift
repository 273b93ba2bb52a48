import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

fileprivate extension Application {
    var lifecycleFlag: SyncState<Bool> { syncState(initial: false, feature: "Lifecycle", id: "flag") }
    var lifecycleKept: SyncState<Int> { syncState(initial: 0, feature: "Lifecycle", id: "kept") }
    var lifecycleNul: SyncState<Int> { syncState(initial: 5, feature: "App", id: "a\u{0}b") }
}

/// Keys can be listed and removed for good; NUL in a key is refused up front by every store.
@Suite("SyncState key lifecycle", .isolatedApplication, .reportsAsDiagnostics)
struct SyncKeyLifecycleTests {
    @Test("SyncState.resetDurably() deletes the key in the store after this key's queued writes; keys() lists only keys with a value")
    func removeForGood() async throws {
        let store = installStore()
        var flag = Application.syncState(\.lifecycleFlag)
        var kept = Application.syncState(\.lifecycleKept)
        flag.value = true
        kept.value = 4
        try await flag.resetDurably()
        #expect(flag.value == false)
        let record = try #require(try store.cachedRecord(forKey: "Lifecycle/flag"))
        #expect(record.value == nil)
        #expect(record.version == 2)   // after the queued `true` (version 1)
        try await Application.flushSyncWrites(timeout: .seconds(300))
        #expect(try await store.keys() == ["Lifecycle/kept"])
    }

    @Test("keys() and delete(forKey:) of the local store", arguments: [false, true])
    func localKeys(inMemoryFileSystem: Bool) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = inMemoryFileSystem
            ? LocalSyncStore(path: "/sync/sync.json", fileSystem: InMemoryFileSystem())
            : LocalSyncStore(path: directory.file("sync.json"))
        _ = try await store.write(Data("1".utf8), forKey: "b")
        _ = try await store.write(Data("2".utf8), forKey: "a")
        let removed = try await store.delete(forKey: "b")
        #expect(removed.value == nil && removed.version == 3)
        #expect(try await store.keys() == ["a"])
    }

    @Test("NUL in a key is refused with invalidKey by the in-memory and the local store, and by SyncState")
    func nulRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let stores: [any SyncStore] = [InMemorySyncStore(), LocalSyncStore(path: directory.file("sync.json"))]
        for store in stores {
            for operation in ["read", "write", "compare-and-set"] {
                do {
                    switch operation {
                    case "read": _ = try store.cachedRecord(forKey: "App/a\u{0}b")
                    case "write": _ = try await store.write(Data("1".utf8), forKey: "App/a\u{0}b")
                    default: _ = try await store.compareAndSet(Data("1".utf8), forKey: "App/a\u{0}b", expectedVersion: 0)
                    }
                    Issue.record("\(type(of: store)) accepted NUL in a key (\(operation))")
                } catch let error as SyncStoreError {
                    #expect(error.kind == .invalidKey)
                    #expect(error.description.contains("must not contain a NUL character"), "\(error)")
                }
            }
            #expect(try await store.snapshot().isEmpty)
        }
        let errors = collectErrors()
        let state = Application.syncState(\.lifecycleNul)
        #expect(state.value == 5)
        await #expect(throws: SyncStoreError.self) { try await state.write(6) }
        #expect(errors.messages.contains { $0.contains("NUL") }, "\(errors.messages)")
    }
}
