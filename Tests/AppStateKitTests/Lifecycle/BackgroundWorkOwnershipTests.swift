import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSync
import AppStateKitTesting

extension Application {
    /// A SyncState of the ownership tests.
    fileprivate var ownedCounter: SyncState<Int> { syncState(initial: 0, feature: "Ownership", id: "counter") }
}

/// Waits (at most `limit`) until `condition` holds; returns whether it did.
private func eventually(within limit: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// What one application's run leaves to check once it is released.
private struct Released {
    weak var store: AnyObject?
    weak var coordinator: SyncCoordinator?
    weak var writes: SyncWriteQueue?
    var owners: [ObjectIdentifier] = []
    var activitiesWhileRunning: [String] = []
}

@Suite("Background work has an owner", .isolatedApplication, .timeLimit(.minutes(2)))
struct BackgroundWorkOwnershipTests {
    /// Runs an application over `store` in an isolated scope: writes through a SyncState,
    /// follows its change stream until another writer's value arrives through the store's feed,
    /// then leaves the scope (releasing the application, and with it `store` and its
    /// coordinator).
    private static func runApplication(over makeStore: () -> any SyncStore, otherWriter: @escaping @Sendable (any SyncStore) async throws -> Void) async throws -> Released {
        var released = Released()
        try await Application.withIsolatedApplication {
            let store = makeStore()
            Application.promote(\.syncStore, with: store)
            var counter = Application.syncState(\.ownedCounter)
            counter.value = 1
            try await counter.write(2)
            try await Application.flushSyncWrites(timeout: .seconds(30))
            let values = Application.values(of: \.ownedCounter)
            let follower = Task {
                for await value in values where value == 3 { return true }
                return false
            }
            try await otherWriter(store)
            #expect(await follower.value)
            let coordinator = SyncCoordinator.of(Application.current.registry)
            released.store = store as AnyObject
            released.coordinator = coordinator
            released.writes = coordinator.writes
            released.owners = [ObjectIdentifier(store as AnyObject), ObjectIdentifier(coordinator), ObjectIdentifier(coordinator.writes)]
            released.activitiesWhileRunning = released.owners.flatMap { BackgroundActivities.names(owner: $0) }.sorted()
        }
        return released
    }

    @Test("after an application over a LocalSyncStore is released, its watcher thread, feed consumer and write worker end, and store and coordinator are freed")
    func localStoreApplication() async throws {
        let files = InMemoryFileSystem()
        let path = "/data/ownership/sync.json"
        let released = try await Self.runApplication(over: { LocalSyncStore(path: path, fileSystem: files) }) { _ in
            // Another process, on the same file: the store's watcher thread notices its write.
            _ = try await LocalSyncStore(path: path, fileSystem: files).write(Data("3".utf8), forKey: "Ownership/counter")
        }
        #expect(released.activitiesWhileRunning.contains("LocalSyncStore watcher thread"))
        #expect(released.activitiesWhileRunning.contains("SyncCoordinator change feed"))
        #expect(await eventually { released.store == nil && released.coordinator == nil && released.writes == nil })
        #expect(await eventually { BackgroundActivities.names(ofFreedOwners: released.owners).isEmpty }, "\(BackgroundActivities.names(ofFreedOwners: released.owners))")
    }

    @Test("after an application over an InMemorySyncStore is released, its feed consumer and write worker end, and store and coordinator are freed")
    func inMemoryStoreApplication() async throws {
        let released = try await Self.runApplication(over: { InMemorySyncStore() }) { store in
            // Written to the store directly, as another process would: it arrives through the feed.
            _ = try await store.write(Data("3".utf8), forKey: "Ownership/counter")
        }
        #expect(released.activitiesWhileRunning == ["SyncCoordinator change feed"])
        #expect(await eventually { released.store == nil && released.coordinator == nil && released.writes == nil })
        #expect(await eventually { BackgroundActivities.names(ofFreedOwners: released.owners).isEmpty }, "\(BackgroundActivities.names(ofFreedOwners: released.owners))")
    }
}
