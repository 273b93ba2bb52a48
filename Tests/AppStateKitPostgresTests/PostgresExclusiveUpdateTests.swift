#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// `PostgresSyncStore.updateExclusively`: the row lock that lets `SyncState.update` commit
/// under any contention.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresExclusiveUpdateTests {
    struct Refused: Error {}

    /// The transform's increment of the record's integer value (0 when there is none).
    @Sendable static func increment(_ record: SyncRecord?) throws -> Data? {
        let current = try record?.value.map { try JSONDecoder().decode(Int.self, from: $0) } ?? 0
        return .json("\(current + 1)")
    }

    @Test func aKeyWithoutARowIsCreatedAndAnExistingRowGetsTheNextVersion() async throws {
        try await PostgresTestServer.withStore(table: PostgresTestServer.uniqueTable("excl_basic")) { store, _ in
            let seen = Mutex<[SyncRecord?]>([])
            let created = try await store.updateExclusively(forKey: "n") { record in
                seen.withLock { $0.append(record) }
                return try Self.increment(record)
            }
            #expect(created == SyncRecord(key: "n", value: .json("1"), version: 1))
            let next = try await store.updateExclusively(forKey: "n", Self.increment)
            #expect(next == SyncRecord(key: "n", value: .json("2"), version: 2))
            #expect(seen.withLock { $0 } == [nil])
            #expect(PostgresTestServer.text(try await store.fetchRecord(forKey: "n")) == "2")
            #expect(try store.cachedRecord(forKey: "n") == next)
        }
    }

    @Test func theTransformsErrorReachesTheCallerUnchangedAndNothingIsWritten() async throws {
        try await PostgresTestServer.withStore(table: PostgresTestServer.uniqueTable("excl_error")) { store, _ in
            _ = try await store.write(.json("5"), forKey: "n")
            await #expect(throws: Refused.self) {
                try await store.updateExclusively(forKey: "n") { _ in throw Refused() }
            }
            await #expect {
                try await store.updateExclusively(forKey: "n") { _ in Data([0xFF, 0xFE]) }
            } throws: { error in
                (error as? SyncStoreError)?.kind == .typeMismatch
            }
            #expect(try await store.fetchRecord(forKey: "n") == SyncRecord(key: "n", value: .json("5"), version: 1))
        }
    }

    /// While an exclusive update holds the row, a compare-and-set on the version it read waits
    /// for the lock and then loses: the exclusive update cannot.
    @Test func aCompareAndSetWaitsForTheLockAndThenLoses() async throws {
        let table = PostgresTestServer.uniqueTable("excl_lock")
        try await PostgresTestServer.withStore(table: table) { holder, _ in
            try await PostgresTestServer.withStore(table: table, dropTable: false) { other, _ in
                _ = try await holder.write(.json("1"), forKey: "n")
                let entered = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                async let exclusive = holder.updateExclusively(forKey: "n") { record in
                    entered.signal()
                    _ = release.wait(timeout: .now() + 10)
                    return try Self.increment(record)
                }
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        entered.wait()
                        continuation.resume()
                    }
                }
                async let racing = other.compareAndSet(.json("99"), forKey: "n", expectedVersion: 1)
                try await Task.sleep(for: .milliseconds(200))
                release.signal()
                let committed = try await exclusive
                let lost = try await racing
                #expect(committed == SyncRecord(key: "n", value: .json("2"), version: 2))
                #expect(lost == .conflict(current: SyncRecord(key: "n", value: .json("2"), version: 2)))
            }
        }
    }

    @Test func concurrentExclusiveUpdatesFromTwoStoresAreEachCountedOnce() async throws {
        let table = PostgresTestServer.uniqueTable("excl_count")
        try await PostgresTestServer.withStore(table: table) { first, _ in
            try await PostgresTestServer.withStore(table: table, dropTable: false) { second, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for store in [first, second] {
                        for _ in 0..<10 {
                            group.addTask {
                                for _ in 0..<5 {
                                    _ = try await store.updateExclusively(forKey: "n", Self.increment)
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await first.fetchRecord(forKey: "n") == SyncRecord(key: "n", value: .json("100"), version: 100))
            }
        }
    }
}
}
#endif
