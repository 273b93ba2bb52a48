#if Configuration
import AppStateKit
@testable import AppStateKitConfiguration
import AppStateKitCore
import AppStateKitTesting
import Configuration
import Foundation
import Testing

/// Waits (at most `limit`) until `condition` holds; returns whether it did.
private func eventually(within limit: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

@Suite("Configuration providers' background work", .isolatedApplication, .reportsQuietly, .timeLimit(.minutes(1)))
struct ProviderLifecycleTests {
    @Test("a SyncStoreConfigProvider's initialiser subscribes to nothing; its first read subscribes and starts the worker")
    func syncProviderStartsNothingInInit() async throws {
        let store = InMemorySyncStore()
        _ = try await store.write(Data("1".utf8), forKey: "Configuration/n")
        let provider = try await SyncStoreConfigProvider(store: store)
        #expect(store.feedCount == 0)
        #expect(BackgroundActivities.names(owner: ObjectIdentifier(provider)) == [])

        // Written after the provider read the namespace, before anything followed the feed:
        // the worker reads the namespace again after subscribing, so it is not missed.
        _ = try await store.write(Data("2".utf8), forKey: "Configuration/n")
        _ = try provider.value(forKey: ["n"], type: .int)
        #expect(store.feedCount == 1)
        #expect(BackgroundActivities.names(owner: ObjectIdentifier(provider)) == ["SyncStoreConfigProvider change feed worker"])
        #expect(await eventually { (try? provider.value(forKey: ["n"], type: .int).value?.content) == .int(2) })
    }

    @Test("a KeyValueStoreConfigProvider nobody reads does not poll; one that is read does")
    func keyValueProviderStartsNothingInInit() async throws {
        let idleStore = FlakyKeyValueStore()
        let readStore = FlakyKeyValueStore()
        let idle = try KeyValueStoreConfigProvider(store: idleStore, pollInterval: .milliseconds(2))
        let read = try KeyValueStoreConfigProvider(store: readStore, pollInterval: .milliseconds(2))
        let listedAtStart = idleStore.listings.load(ordering: .sequentiallyConsistent)
        _ = try read.value(forKey: ["n"], type: .int)
        // The read one polls five times; the idle one, at the same interval, not once.
        #expect(await eventually { readStore.listings.load(ordering: .sequentiallyConsistent) >= listedAtStart + 5 })
        #expect(idleStore.listings.load(ordering: .sequentiallyConsistent) == listedAtStart)
        #expect(BackgroundActivities.names(owner: ObjectIdentifier(idle)) == [])
        #expect(BackgroundActivities.names(owner: ObjectIdentifier(read)) == ["KeyValueStoreConfigProvider poll worker"])
    }

    @Test("run() takes over from the worker, follows the feed until cancelled, then leaves nothing running")
    func syncProviderRunTakesOverAndEnds() async throws {
        let store = InMemorySyncStore()
        let provider = try await SyncStoreConfigProvider(store: store)
        let owner = ObjectIdentifier(provider)
        _ = try provider.value(forKey: ["n"], type: .int)
        #expect(BackgroundActivities.names(owner: owner) == ["SyncStoreConfigProvider change feed worker"])

        let running = Task { try await provider.run() }
        #expect(await eventually { BackgroundActivities.names(owner: owner) == ["SyncStoreConfigProvider.run change feed"] })
        #expect(await eventually { store.feedCount == 1 })
        _ = try await store.write(Data("3".utf8), forKey: "Configuration/n")
        #expect(await eventually { (try? provider.value(forKey: ["n"], type: .int).value?.content) == .int(3) })

        running.cancel()
        try await running.value
        #expect(BackgroundActivities.names(owner: owner) == [])
        #expect(await eventually { store.feedCount == 0 })
        // After run() returned, a read starts no worker again.
        _ = try provider.value(forKey: ["n"], type: .int)
        #expect(BackgroundActivities.names(owner: owner) == [])
        #expect(store.feedCount == 0)
    }

    @Test("KeyValueStoreConfigProvider.run() polls until cancelled, then leaves nothing running")
    func keyValueProviderRunEnds() async throws {
        let store = FlakyKeyValueStore()
        let provider = try KeyValueStoreConfigProvider(store: store, pollInterval: .milliseconds(2))
        let owner = ObjectIdentifier(provider)
        let running = Task { try await provider.run() }
        store.set(7, forKey: "Configuration/n")
        #expect(await eventually { (try? provider.value(forKey: ["n"], type: .int).value?.content) == .int(7) })
        #expect(BackgroundActivities.names(owner: owner) == ["KeyValueStoreConfigProvider.run poll"])
        running.cancel()
        try await running.value
        #expect(BackgroundActivities.names(owner: owner) == [])
        let listings = store.listings.load(ordering: .sequentiallyConsistent)
        _ = try provider.value(forKey: ["n"], type: .int)
        #expect(BackgroundActivities.names(owner: owner) == [])
        #expect(store.listings.load(ordering: .sequentiallyConsistent) == listings)
    }

    @Test("releasing a provider ends its worker and its feed, and frees the provider")
    func releasingEndsTheWorkers() async throws {
        let syncStore = InMemorySyncStore()
        let keyValueStore = FlakyKeyValueStore()
        weak var weakSync: SyncStoreConfigProvider?
        weak var weakKeyValue: KeyValueStoreConfigProvider?
        var owners: [ObjectIdentifier] = []
        do {
            let sync = try await SyncStoreConfigProvider(store: syncStore)
            let keyValue = try KeyValueStoreConfigProvider(store: keyValueStore, pollInterval: .milliseconds(2))
            _ = try await sync.watchSnapshot { updates in
                var iterator = updates.makeAsyncIterator()
                return try await iterator.next() != nil
            }
            _ = keyValue.snapshot()
            owners = [ObjectIdentifier(sync), ObjectIdentifier(keyValue)]
            #expect(owners.flatMap { BackgroundActivities.names(owner: $0) }.count == 2)
            weakSync = sync
            weakKeyValue = keyValue
        }
        #expect(await eventually { weakSync == nil && weakKeyValue == nil })
        #expect(await eventually { BackgroundActivities.names(ofFreedOwners: owners).isEmpty }, "\(BackgroundActivities.names(ofFreedOwners: owners))")
        #expect(await eventually { syncStore.feedCount == 0 })
    }
}
#endif
