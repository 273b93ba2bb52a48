// The snippets of SyncState.md, compiled verbatim and run.
import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

struct Flags: Codable, Sendable {
    var newCheckout = false
    var requestLimit = 100
}

extension Application {
    var flags: SyncState<Flags> { syncState(initial: Flags(), feature: "App", id: "flags") }
    var motd: SyncState<String?> { syncState(feature: "App", id: "motd") }     // nil until set
}

// Declared for the flushing snippet, which assigns it.
extension Application {
    var maintenance: SyncState<Bool> { syncState(initial: false, feature: "App", id: "maintenance") }
}

struct CheckoutHandler {
    @SyncState(\.flags) var flags

    func route() -> String { flags.newCheckout ? "new" : "classic" }
}

@Suite(.isolatedApplication)
struct FlagTests {
    @Test func newCheckoutCanBeSwitchedOnRemotely() async throws {
        let store = InMemorySyncStore()
        Application.promote(\.syncStore, with: store)
        #expect(CheckoutHandler().route() == "classic")

        _ = try await store.write(Data(#"{"newCheckout":true,"requestLimit":100}"#.utf8), forKey: "App/flags")

        for _ in 0..<1_000 where CheckoutHandler().route() == "classic" {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(CheckoutHandler().route() == "new")
    }
}

@Suite("SyncState guide snippets", .isolatedApplication)
struct SyncStateSnippets {
    @Test("the opening example")
    func opening() async throws {
        var flags = Application.syncState(\.flags)
        flags.value.newCheckout = true                        // this process sees it now, others shortly
        try await Application.syncState(\.flags).write(Flags(newCheckout: true, requestLimit: 50))  // committed when this returns
        let limit = try await Application.syncState(\.flags).update { $0.requestLimit += 10 }   // atomic across the fleet

        #expect(limit.requestLimit == 60)
        #expect(CheckoutHandler().route() == "new")
        #expect(Application.syncState(\.motd).value == nil)
        var slice = Application.slice(\.flags, \.newCheckout)
        slice.value = false
        #expect(CheckoutHandler().route() == "classic")
    }

    @Test("read and refresh")
    func readAndRefresh() async throws {
        try await Application.syncState(\.flags).write(Flags(newCheckout: true))

        let current = try await Application.syncState(\.flags).read()
        try await Application.syncState(\.flags).refresh()

        #expect(current.newCheckout)
    }

    @Test("failures")
    func failures() async throws {
        do {
            try await Application.syncState(\.flags).write(Flags())
        } catch let error as SyncStoreError where error.kind == .unavailable {
            // Not acknowledged: if the connection broke after sending, it may still have committed;
    // the cache converges on what the store holds. Check before repeating a non-idempotent change.
        }
        #expect(Application.syncState(\.flags).value.requestLimit == 100)
    }

    @Test("which store")
    func whichStore() {
        Application.promote(\.syncStore, with: InMemorySyncStore())

        #expect(Application.dependency(\.syncStore) is InMemorySyncStore)
    }

    @Test("flushing setter writes")
    func flushing() async throws {
        let store = InMemorySyncStore()
        Application.promote(\.syncStore, with: store)
        var maintenance = Application.syncState(\.maintenance)
        maintenance.value = true
        try await Application.flushSyncWrites(timeout: .seconds(10))   // committed, or throws naming the key

        #expect(try store.cachedRecord(forKey: "App/maintenance")?.value == Data("true".utf8))
    }

    @Test("readiness")
    func readiness() async throws {
        Application.promote(\.syncStore, with: InMemorySyncStore())
        try await Application.dependency(\.syncStore).waitUntilReady(timeout: .seconds(10))

        #expect(Application.pendingSyncWrites == 0)
    }
}
