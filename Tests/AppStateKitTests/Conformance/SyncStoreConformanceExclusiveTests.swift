import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// A store whose exclusive update runs the transform and writes its result but claims it can't
/// hold writers off (returns `nil`), or swallows the transform's error and removes the key.
fileprivate final class MisbehavingExclusiveStore: SyncStore {
    enum Fault { case runsButReturnsNil, swallowsErrors }
    let inner = InMemorySyncStore()
    let fault: Fault

    init(_ fault: Fault) { self.fault = fault }

    func cachedRecord(forKey key: String) throws -> SyncRecord? { try inner.cachedRecord(forKey: key) }
    func fetchRecord(forKey key: String) async throws -> SyncRecord? { try await inner.fetchRecord(forKey: key) }
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord { try await inner.write(value, forKey: key) }
    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try await inner.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }
    func snapshot() async throws -> [SyncRecord] { try await inner.snapshot() }
    func changeFeed() -> AsyncStream<SyncChange> { inner.changeFeed() }

    func updateExclusively(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord? {
        let current = try await inner.fetchRecord(forKey: key)
        switch fault {
        case .runsButReturnsNil:
            _ = try await inner.write(try transform(current), forKey: key)
            return nil
        case .swallowsErrors:
            let value: Data?
            do { value = try transform(current) } catch { value = nil }
            // Not atomic either, but serial callers can't tell.
            return try await inner.write(value, forKey: key)
        }
    }
}

@Suite("Sync store conformance: exclusive updates", .isolatedApplication)
struct SyncStoreConformanceExclusiveTests {
    @Test("a store that returns nil from updateExclusively after running the transform fails exclusiveUpdates")
    func runsButReturnsNil() async throws {
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await SyncStoreConformance(store: MisbehavingExclusiveStore(.runsButReturnsNil)).run(.exclusiveUpdates)
        }
        #expect(failure.failedChecks == ["exclusiveUpdates"])
        #expect(failure.description.contains("returned nil (unsupported) but ran its transform 1 times"))
    }

    @Test("a store whose exclusive update swallows the transform's error fails exclusiveUpdates")
    func swallowsErrors() async throws {
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await SyncStoreConformance(store: MisbehavingExclusiveStore(.swallowsErrors)).run(.exclusiveUpdates)
        }
        #expect(failure.failedChecks == ["exclusiveUpdates"])
        #expect(failure.description.contains("whose transform threw returned"))
    }
}
