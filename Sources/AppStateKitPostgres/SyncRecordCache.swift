#if PostgreSQL
import AppStateKit
import Foundation
import NIOConcurrencyHelpers

/// The newest record seen per key, and the open change feeds, behind one lock.
///
/// ``apply(_:)`` keeps a record only when it is newer than the cached one and yields exactly the
/// kept records to every feed, after releasing the lock.
final class SyncRecordCache: Sendable {
    private struct Storage {
        var records: [String: SyncRecord] = [:]
        var feeds: [Int: AsyncStream<SyncRecord>.Continuation] = [:]
        var nextFeedID = 0
        var isFinished = false
    }

    private let storage = NIOLockedValueBox(Storage())

    /// The cached record for `key`.
    func record(forKey key: String) -> SyncRecord? {
        storage.withLockedValue { $0.records[key] }
    }

    /// The cached version of `key` (0: none).
    func version(forKey key: String) -> Int64 {
        storage.withLockedValue { $0.records[key]?.version ?? 0 }
    }

    /// Caches the records newer than the cached ones, yields those to every feed and returns them.
    @discardableResult
    func apply(_ records: [SyncRecord]) -> [SyncRecord] {
        let (newer, feeds) = storage.withLockedValue { storage -> ([SyncRecord], [AsyncStream<SyncRecord>.Continuation]) in
            var newer: [SyncRecord] = []
            for record in records where record.version > (storage.records[record.key]?.version ?? 0) {
                storage.records[record.key] = record
                newer.append(record)
            }
            return (newer, newer.isEmpty ? [] : Array(storage.feeds.values))
        }
        for feed in feeds {
            for record in newer { feed.yield(record) }
        }
        return newer
    }

    /// A new feed; it is removed when its consumer stops. After ``finishFeeds()``, a new feed
    /// ends at once.
    func makeFeed() -> AsyncStream<SyncRecord> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncRecord.self, bufferingPolicy: .unbounded)
        let id = storage.withLockedValue { storage -> Int? in
            guard !storage.isFinished else { return nil }
            defer { storage.nextFeedID += 1 }
            storage.feeds[storage.nextFeedID] = continuation
            return storage.nextFeedID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.storage.withLockedValue { $0.feeds.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every feed (the store shut down).
    func finishFeeds() {
        let feeds = storage.withLockedValue { storage -> [AsyncStream<SyncRecord>.Continuation] in
            storage.isFinished = true
            defer { storage.feeds.removeAll() }
            return Array(storage.feeds.values)
        }
        for feed in feeds { feed.finish() }
    }
}
#endif
