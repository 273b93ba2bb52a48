import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

fileprivate extension Application {
    var isolatedFlag: SyncState<Bool> { syncState(initial: false, feature: "Isolation", id: "flag") }
    var isolatedOther: SyncState<Int> { syncState(initial: 0, feature: "Isolation", id: "other") }
}

@Suite("SyncState isolation and binding", .isolatedApplication)
struct SyncStateIsolationTests {
    @Test("an isolated application gets its own in-memory store, not the enclosing application's")
    func privateStore() async throws {
        let outer = installStore()
        try await Application.syncState(\.isolatedFlag).write(true)
        let innerStore = Application.withIsolatedApplication {
            #expect(Application.syncState(\.isolatedFlag).value == false)
            return Application.dependency(\.syncStore)
        }
        #expect(innerStore is InMemorySyncStore)
        #expect((innerStore as? InMemorySyncStore) !== outer)
        #expect(Application.syncState(\.isolatedFlag).value == true)
    }

    @Test("a handle taken inside an isolated scope keeps writing the isolated store after the scope")
    func handleOutlivesScope() async throws {
        let outer = installStore()
        let (handle, inner) = Application.withIsolatedApplication {
            let store = installStore()
            return (Application.syncState(\.isolatedFlag), store)
        }
        var flag = handle
        flag.value = true
        try await handle.write(true)
        #expect(try inner.cachedRecord(forKey: "Isolation/flag")?.value == Data("true".utf8))
        #expect(try outer.cachedRecord(forKey: "Isolation/flag") == nil)
        #expect(Application.syncState(\.isolatedFlag).value == false)
    }

    @Test("a handle of the enclosing application written inside an isolated scope writes the enclosing store")
    func outerHandleInsideScope() async throws {
        let outer = installStore()
        let handle = Application.syncState(\.isolatedFlag)
        let inner = try await Application.withIsolatedApplication {
            let store = installStore()
            var flag = handle
            flag.value = true
            try await handle.write(true)
            #expect(Application.syncState(\.isolatedFlag).value == false)
            return store
        }
        #expect(try outer.cachedRecord(forKey: "Isolation/flag")?.value == Data("true".utf8))
        #expect(try inner.cachedRecord(forKey: "Isolation/flag") == nil)
    }

    @Test("a store promoted after first use is picked up: the cache reloads from it and follows its feed")
    func promotedStorePickedUp() async throws {
        let first = installStore()
        _ = try await first.write(Data("true".utf8), forKey: "Isolation/flag")
        #expect(Application.syncState(\.isolatedFlag).value == true)

        let second = InMemorySyncStore()
        Application.promote(\.syncStore, with: second)
        #expect(await eventually { Application.syncState(\.isolatedFlag).value == false })
        _ = try await second.write(Data("true".utf8), forKey: "Isolation/flag")
        #expect(await eventually { Application.syncState(\.isolatedFlag).value == true })
        // The old store's feed is no longer consumed.
        #expect(await eventually { first.feedCount == 0 })
        // With no feed open on the old store, nothing can carry its write to the entry (no
        // wait needed, and none would prove more): the entry still reads the new store's value.
        _ = try await first.write(Data("false".utf8), forKey: "Isolation/flag")
        #expect(first.feedCount == 0)
        #expect(Application.syncState(\.isolatedFlag).value == true)
        try await Application.syncState(\.isolatedFlag).write(false)
        #expect(try second.cachedRecord(forKey: "Isolation/flag")?.version == 2)
    }

    @Test("the first read after a promotion already serves the new store's value")
    func promotionSeenByNextRead() async throws {
        let first = installStore()
        _ = try await first.write(Data("true".utf8), forKey: "Isolation/flag")
        #expect(Application.syncState(\.isolatedFlag).value == true)
        let second = InMemorySyncStore()
        Application.promote(\.syncStore, with: second)
        #expect(Application.syncState(\.isolatedFlag).value == false)
    }

    @Test("a global override of \\.syncStore applies, and cancelling it returns to the promoted store")
    func globalOverride() async throws {
        let promoted = installStore()
        let overriding = InMemorySyncStore()
        _ = try await overriding.write(Data("true".utf8), forKey: "Isolation/flag")
        #expect(Application.syncState(\.isolatedFlag).value == false)
        let override = Application.override(\.syncStore, with: overriding)
        #expect(await eventually { Application.syncState(\.isolatedFlag).value == true })
        await override.cancel()
        #expect(await eventually { Application.syncState(\.isolatedFlag).value == false })
        try await Application.syncState(\.isolatedFlag).write(true)
        #expect(try promoted.cachedRecord(forKey: "Isolation/flag")?.value == Data("true".utf8))
    }

    @Test("a task-local override of \\.syncStore is not used by SyncState, and that is reported once")
    func scopedOverrideIgnored() async throws {
        let errors = collectErrors()
        let store = installStore()
        let scoped = InMemorySyncStore()
        try await Application.withOverrides { $0.override(\.syncStore, with: scoped) } operation: {
            try await Application.syncState(\.isolatedFlag).write(true)
            try await Application.syncState(\.isolatedOther).write(1)
        }
        #expect(try store.cachedRecord(forKey: "Isolation/flag")?.value == Data("true".utf8))
        #expect(try scoped.cachedRecord(forKey: "Isolation/flag") == nil)
        #expect(errors.messages.filter { $0.contains("ignores the task-local override of \\.syncStore") }.count == 1)
    }

    @Test("one feed consumer per application and store, ended when the application is released")
    func feedEndsWithApplication() async throws {
        let shared = InMemorySyncStore()
        Application.withIsolatedApplication {
            installStore(shared)
            _ = Application.syncState(\.isolatedFlag).value
            _ = Application.syncState(\.isolatedOther).value
            #expect(shared.feedCount == 1)
        }
        #expect(await eventually { shared.feedCount == 0 })
    }
}
