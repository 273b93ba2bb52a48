// The snippets of SyncState.md, compiled and run (with stand-ins for the reader's own types).
import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

struct GuideSyncFlags: Codable, Sendable {
    var newCheckout = false
    var requestLimit = 100
}

extension Application {
    var guideFlags: SyncState<GuideSyncFlags> { syncState(initial: GuideSyncFlags(), feature: "App", id: "flags") }
    var guideMotd: SyncState<String?> { syncState(feature: "App", id: "motd") }     // nil until set
}

struct GuideCheckoutHandler {
    @SyncState(\.guideFlags) var flags

    func route() -> String { flags.newCheckout ? "new" : "classic" }
}

@Suite("SyncState guide snippets", .isolatedApplication)
struct SyncStateSnippets {
    @Test("the opening example")
    func opening() async throws {
        var flags = Application.syncState(\.guideFlags)
        flags.value.newCheckout = true                        // this process sees it now, others shortly
        #expect(GuideCheckoutHandler().route() == "new")
        try await Application.syncState(\.guideFlags).write(GuideSyncFlags(newCheckout: true, requestLimit: 50))  // committed when this returns
        let limit = try await Application.syncState(\.guideFlags).update { $0.requestLimit += 10 }   // atomic across the fleet
        #expect(limit.requestLimit == 60)
        #expect(Application.syncState(\.guideMotd).value == nil)
        var slice = Application.slice(\.guideFlags, \.newCheckout)
        slice.value = false
        #expect(GuideCheckoutHandler().route() == "classic")
    }

    @Test("read and refresh")
    func readAndRefresh() async throws {
        try await Application.syncState(\.guideFlags).write(GuideSyncFlags(newCheckout: true))
        let current = try await Application.syncState(\.guideFlags).read()
        try await Application.syncState(\.guideFlags).refresh()
        #expect(current.newCheckout)
    }

    @Test("failures")
    func failures() async throws {
        do {
            try await Application.syncState(\.guideFlags).write(GuideSyncFlags())
        } catch let error as SyncStoreError where error.kind == .unavailable {
            // Nothing was committed; the cache shows the store's value again.
            Issue.record("the in-memory store is always available: \(error)")
        }
    }

    @Test("which store")
    func whichStore() {
        Application.promote(\.syncStore, with: InMemorySyncStore())
        #expect(Application.dependency(\.syncStore) is InMemorySyncStore)
    }

    @Test("testing: a change made by another process")
    func newCheckoutCanBeSwitchedOnRemotely() async throws {
        let store = InMemorySyncStore()
        Application.promote(\.syncStore, with: store)
        #expect(GuideCheckoutHandler().route() == "classic")

        _ = try await store.write(Data(#"{"newCheckout":true,"requestLimit":100}"#.utf8), forKey: "App/flags")

        for _ in 0..<1_000 where GuideCheckoutHandler().route() == "classic" {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(GuideCheckoutHandler().route() == "new")
    }
}
