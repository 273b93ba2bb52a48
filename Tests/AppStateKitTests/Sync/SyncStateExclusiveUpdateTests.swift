import AppStateKit
import AppStateKitTesting
import Foundation
import Synchronization
import Testing

fileprivate extension Application {
    var contendedCounter: SyncState<Int> { syncState(initial: 0, feature: "Exclusive", id: "counter") }
}

/// A store that loses every compare-and-set to a simulated writer in another process (which
/// adds 100 first), and can hold writers off the way stores of an earlier release did (the
/// deprecated `SyncStore.updateExclusively`, returning `nil` when it can't): its exclusive update
/// applies the transform to the current record and writes the result.
fileprivate final class ContendedStore: SyncStore {
    let inner = InMemorySyncStore()
    let exclusiveCalls = Atomic<Int>(0)
    let supportsExclusive: Bool

    init(supportsExclusive: Bool) {
        self.supportsExclusive = supportsExclusive
    }

    func cachedRecord(forKey key: String) throws -> SyncRecord? { try inner.cachedRecord(forKey: key) }
    func fetchRecord(forKey key: String) async throws -> SyncRecord? { try await inner.fetchRecord(forKey: key) }
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord { try await inner.write(value, forKey: key) }
    func snapshot() async throws -> [SyncRecord] { try await inner.snapshot() }
    func changeFeed() -> AsyncStream<SyncChange> { inner.changeFeed() }

    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        let other = try await inner.fetchRecord(forKey: key)
        let otherValue = try other?.value.map { try JSONDecoder().decode(Int.self, from: $0) } ?? 0
        _ = try await inner.write(Data("\(otherValue + 100)".utf8), forKey: key)
        return try await inner.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }

    func updateExclusively(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord? {
        guard supportsExclusive else { return nil }
        exclusiveCalls.add(1, ordering: .relaxed)
        let current = try await inner.fetchRecord(forKey: key)
        return try await inner.write(try transform(current), forKey: key)
    }
}

/// ``ContendedStore`` (without its old-style exclusive update) that adopts the capability
/// protocol instead.
fileprivate final class AdoptingContendedStore: ExclusiveUpdatingSyncStore {
    let base = ContendedStore(supportsExclusive: false)
    let exclusiveCalls = Atomic<Int>(0)

    func cachedRecord(forKey key: String) throws -> SyncRecord? { try base.cachedRecord(forKey: key) }
    func fetchRecord(forKey key: String) async throws -> SyncRecord? { try await base.fetchRecord(forKey: key) }
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord { try await base.write(value, forKey: key) }
    func snapshot() async throws -> [SyncRecord] { try await base.snapshot() }
    func changeFeed() -> AsyncStream<SyncChange> { base.changeFeed() }
    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try await base.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }

    func updateExclusively(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord {
        exclusiveCalls.add(1, ordering: .relaxed)
        let current = try await base.inner.fetchRecord(forKey: key)
        return try await base.inner.write(try transform(current), forKey: key)
    }
}

@Suite("SyncState update with a store that holds writers off", .isolatedApplication)
struct SyncStateExclusiveUpdateTests {
    struct Refused: Error {}

    @Test("after losing a compare-and-set, update commits through the store's exclusive update, on the winner's value")
    func updateFallsBackToTheExclusiveUpdate() async throws {
        let store = ContendedStore(supportsExclusive: true)
        Application.promote(\.syncStore, with: store)
        let bodyRuns = Atomic<Int>(0)
        let committed = try await Application.syncState(\.contendedCounter).update {
            bodyRuns.add(1, ordering: .relaxed)
            $0 += 1
        }
        // The first try (on 0) lost to the simulated writer's 100; the exclusive update ran the
        // body on 100.
        #expect(committed == 101)
        #expect(bodyRuns.load(ordering: .relaxed) == 2)
        #expect(store.exclusiveCalls.load(ordering: .relaxed) == 1)
        #expect(try store.inner.cachedRecord(forKey: "Exclusive/counter")?.value == Data("101".utf8))
        #expect(Application.syncState(\.contendedCounter).value == 101)
    }

    @Test("an error the body throws inside the exclusive update reaches the caller unchanged, and nothing is committed")
    func bodyErrorsInTheExclusiveUpdatePropagate() async throws {
        let store = ContendedStore(supportsExclusive: true)
        Application.promote(\.syncStore, with: store)
        let bodyRuns = Atomic<Int>(0)
        await #expect(throws: Refused.self) {
            try await Application.syncState(\.contendedCounter).update { value in
                if bodyRuns.add(1, ordering: .relaxed).newValue == 2 { throw Refused() }
                value += 1
            }
        }
        #expect(store.exclusiveCalls.load(ordering: .relaxed) == 1)
        // Only the simulated writer's value is in the store.
        #expect(try store.inner.cachedRecord(forKey: "Exclusive/counter")?.value == Data("100".utf8))
    }

    @Test("a store without exclusive updates keeps retrying compare-and-set up to maxAttempts")
    func storesWithoutExclusiveUpdatesRetry() async throws {
        let store = ContendedStore(supportsExclusive: false)
        Application.promote(\.syncStore, with: store)
        await #expect {
            try await Application.syncState(\.contendedCounter).update(maxAttempts: 3) { $0 += 1 }
        } throws: { error in
            (error as? SyncStoreError)?.kind == .contention
        }
        #expect(store.exclusiveCalls.load(ordering: .relaxed) == 0)
        // Three simulated writers won; none of the update's increments landed.
        #expect(try store.inner.cachedRecord(forKey: "Exclusive/counter")?.value == Data("300".utf8))
    }

    @Test("a store that adopts ExclusiveUpdatingSyncStore: update commits through its updateExclusively after losing a compare-and-set")
    func updateUsesTheCapabilityProtocol() async throws {
        let store = AdoptingContendedStore()
        Application.promote(\.syncStore, with: store)
        let committed = try await Application.syncState(\.contendedCounter).update { $0 += 1 }
        #expect(committed == 101)
        #expect(store.exclusiveCalls.load(ordering: .relaxed) == 1)
        #expect(try store.base.inner.cachedRecord(forKey: "Exclusive/counter")?.value == Data("101".utf8))
    }

    @Test("a store that neither adopts ExclusiveUpdatingSyncStore nor implements the old requirement offers no exclusive update and never runs the transform")
    func theDefaultReturnsNil() async throws {
        let ran = Atomic<Bool>(false)
        let store: any SyncStore = InMemorySyncStore()
        #expect(!(store is any ExclusiveUpdatingSyncStore))
        let record = try await store.exclusiveUpdate(forKey: "k") { _ in
            ran.store(true, ordering: .relaxed)
            return nil
        }
        let transformRan = ran.load(ordering: .relaxed)
        #expect(record == nil)
        #expect(!transformRan)
    }
}
