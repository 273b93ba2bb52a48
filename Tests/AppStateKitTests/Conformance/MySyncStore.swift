import AppStateKit
import Foundation

/// The smallest correct ``SyncStore``: what the conformance suite is proven against before the
/// package's own stores run it. `faults` turn it into a broken store, to prove the suite fails
/// each way a store can break the contract.
final class MySyncStore: SyncStore {
    /// Ways to break the contract.
    struct Faults: OptionSet, Sendable {
        let rawValue: Int
        /// Every write keeps version 1.
        static let keepsVersion = Faults(rawValue: 1 << 0)
        /// compareAndSet ignores the expected version and always commits.
        static let ignoresExpectedVersion = Faults(rawValue: 1 << 1)
        /// Feeds deliver nothing.
        static let silentFeeds = Faults(rawValue: 1 << 2)
        /// Keys and values of any size are accepted.
        static let noLimits = Faults(rawValue: 1 << 3)
        /// A removal deletes the record instead of leaving a tombstone.
        static let dropsTombstones = Faults(rawValue: 1 << 4)
    }

    private struct Storage {
        var records: [String: SyncRecord] = [:]
        var feeds: [Int: AsyncStream<SyncChange>.Continuation] = [:]
        var nextFeed = 0
    }

    private let storage = Locked(Storage())
    private let faults: Faults

    init(faults: Faults = []) {
        self.faults = faults
    }

    func cachedRecord(forKey key: String) throws -> SyncRecord? {
        storage.withLock { $0.records[key] }
    }

    func fetchRecord(forKey key: String) async throws -> SyncRecord? {
        storage.withLock { $0.records[key] }
    }

    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        try check(key, value)
        return commit(value, forKey: key, if: nil).record!
    }

    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try check(key, value)
        let (record, current) = commit(value, forKey: key, if: faults.contains(.ignoresExpectedVersion) ? nil : expectedVersion)
        return record.map(SyncCommit.committed) ?? .conflict(current: current)
    }

    func snapshot() async throws -> [SyncRecord] {
        storage.withLock { Array($0.records.values) }
    }

    func changeFeed() -> AsyncStream<SyncChange> {
        let (stream, continuation) = AsyncStream<SyncChange>.makeStream()
        let id = storage.withLock { storage in
            storage.nextFeed += 1
            storage.feeds[storage.nextFeed] = continuation
            return storage.nextFeed
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.storage.withLock { $0.feeds.removeValue(forKey: id) }
        }
        return stream
    }

    private func check(_ key: String, _ value: Data?) throws {
        if !faults.contains(.noLimits) { try SyncLimits.check(key: key, value: value) }
    }

    /// Commits unless `expectedVersion` is given and differs; delivers the record to every feed
    /// after releasing the lock.
    private func commit(_ value: Data?, forKey key: String, if expectedVersion: Int64?) -> (record: SyncRecord?, current: SyncRecord?) {
        let (record, current, feeds): (SyncRecord?, SyncRecord?, [AsyncStream<SyncChange>.Continuation]) = storage.withLock { storage in
            let current = storage.records[key]
            if let expectedVersion, expectedVersion != (current?.version ?? 0) { return (nil, current, []) }
            let version = faults.contains(.keepsVersion) ? 1 : (current?.version ?? 0) + 1
            let record = SyncRecord(key: key, value: value, version: version)
            storage.records[key] = value == nil && faults.contains(.dropsTombstones) ? nil : record
            return (record, current, faults.contains(.silentFeeds) ? [] : Array(storage.feeds.values))
        }
        if let record {
            for feed in feeds { feed.yield(.changed(record)) }
        }
        return (record, current)
    }
}
