import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// Stands in for a test of a user's own store.
@Suite("Sync store conformance: documentation example", .isolatedApplication, .reportsAsDiagnostics)
struct SyncStoreConformanceExample {
    @Test func mySyncStoreConforms() async throws {
        try await SyncStoreConformance(store: MySyncStore()).run()
    }
}

/// The suite fails a store for each way it breaks the contract, naming the checks.
@Suite("Sync store conformance: broken stores fail", .isolatedApplication, .reportsAsDiagnostics)
struct SyncStoreConformanceFailureTests {
    private func failedChecks(_ faults: MySyncStore.Faults) async throws -> [String] {
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await SyncStoreConformance(store: MySyncStore(faults: faults), timeout: .milliseconds(200)).run()
        }
        #expect(failure.description.hasPrefix("MySyncStore failed \(failure.failedChecks.count) of 17 conformance checks:\n- "))
        return failure.failedChecks
    }

    @Test("a store that doesn't bump versions")
    func keepsVersion() async throws {
        let failed = try await failedChecks(.keepsVersion)
        #expect(failed.contains("versionsIncrease"))
        #expect(failed.contains("compareAndSetCommits"))
        #expect(failed.contains("tombstones"))
        #expect(failed.contains("concurrentCompareAndSet"))
    }

    @Test("a store whose compare-and-set always commits")
    func ignoresExpectedVersion() async throws {
        let failed = try await failedChecks(.ignoresExpectedVersion)
        #expect(failed.contains("compareAndSetConflicts"))
        #expect(failed.contains("compareAndSetOnAbsentKey"))
    }

    @Test("a store whose feeds deliver nothing")
    func silentFeeds() async throws {
        #expect(try await failedChecks(.silentFeeds) == ["changesDeliverOwnWrites", "changesFeedsAreIndependent", "changeFeedDeliversOwnWrites"])
    }

    @Test("a store that enforces no limits")
    func noLimits() async throws {
        #expect(try await failedChecks(.noLimits) == ["limits"])
    }

    @Test("a store that deletes removed keys instead of keeping tombstones")
    func dropsTombstones() async throws {
        let failed = try await failedChecks(.dropsTombstones)
        #expect(failed.contains("tombstones"))
        #expect(failed.contains("snapshotHoldsEveryRecord"))
        #expect(failed.contains("cachedRecordReflectsOwnWrites"))
    }

    @Test("a failure message names the key, what was done and what came back")
    func message() async throws {
        let suite = SyncStoreConformance(store: MySyncStore(faults: .keepsVersion))
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await suite.run(.versionsIncrease)
        }
        let key = suite.keyPrefix + "versions"
        #expect(failure.description == """
            MySyncStore failed 1 of 1 conformance checks:
            - versionsIncrease: three writes of key "\(key)" got versions [1, 1, 1]; each must be greater than the one before
            """)
    }
}

/// Every sync store the package ships passes the suite.
@Suite("Sync store conformance", .isolatedApplication, .reportsAsDiagnostics)
struct SyncStoreConformanceTests {
    @Test("InMemorySyncStore")
    func inMemorySyncStore() async throws {
        try await SyncStoreConformance(store: InMemorySyncStore()).run()
    }

    @Test("the isolated application's sync store (\\.syncStore)")
    func isolatedApplicationStore() async throws {
        try await SyncStoreConformance(store: Application.dependency(\.syncStore)).run()
    }

    @Test("LocalSyncStore in a temporary directory")
    func localSyncStore() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await SyncStoreConformance(store: LocalSyncStore(path: directory.file("sync.json"))).run()
    }

    @Test("LocalSyncStore on an InMemoryFileSystem")
    func localSyncStoreInMemory() async throws {
        let fileSystem = InMemoryFileSystem()
        fileSystem.createDirectory(atPath: "/sync")
        try await SyncStoreConformance(store: LocalSyncStore(path: "/sync/sync.json", fileSystem: fileSystem)).run()
    }

    @Test("two LocalSyncStores over one file each pass while the other runs")
    func twoLocalSyncStoresOverOneFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("shared.json")
        async let first: Void = SyncStoreConformance(store: LocalSyncStore(path: path)).run()
        async let second: Void = SyncStoreConformance(store: LocalSyncStore(path: path)).run()
        _ = try await (first, second)
    }
}
