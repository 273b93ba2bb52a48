import AppStateKit
import AppStateKitTesting
import FlagService
import Foundation
import Synchronization
import Testing

/// A dictionary-backed SyncStore standing in for PostgreSQL: versioned records and
/// compare-and-set, no feed.
final class DictionarySyncStore: SyncStore {
    private let records = Mutex<[String: SyncRecord]>([:])

    func cachedRecord(forKey key: String) throws -> SyncRecord? { records.withLock { $0[key] } }
    func fetchRecord(forKey key: String) async throws -> SyncRecord? { records.withLock { $0[key] } }
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        records.withLock { records in
            let record = SyncRecord(key: key, value: value, version: (records[key]?.version ?? 0) + 1)
            records[key] = record
            return record
        }
    }
    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        records.withLock { records in
            guard (records[key]?.version ?? 0) == expectedVersion else { return .conflict(current: records[key]) }
            let record = SyncRecord(key: key, value: value, version: expectedVersion + 1)
            records[key] = record
            return .committed(record)
        }
    }
    func snapshot() async throws -> [SyncRecord] { records.withLock { Array($0.values) } }
    func changeFeed() -> AsyncStream<SyncChange> { AsyncStream { $0.finish() } }
}

@Suite(.isolatedApplication)
struct SharedFlagRepositoryTests {
    @Test func instancesSharingAStoreSeeEachOthersFlagsAndConcurrentSavesAllSurvive() async throws {
        let store = DictionarySyncStore()
        Application.promote(\.syncStore, with: store)
        let first = SharedFlagRepository()
        let second = SharedFlagRepository()
        try await first.save(Flag(name: "beta", enabled: true, updatedAt: Date(timeIntervalSince1970: 0)))
        #expect(try second.flag(named: "beta")?.enabled == true)
        // Twenty saves of different flags at once from two "instances": none is lost.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                let repository = index.isMultiple(of: 2) ? first : second
                group.addTask { try await repository.save(Flag(name: "f\(index)", enabled: true, updatedAt: Date(timeIntervalSince1970: 0))) }
            }
            try await group.waitForAll()
        }
        #expect(try first.all().count == 21)
        #expect(try second.all().map(\.name).contains("f19"))
    }
}
