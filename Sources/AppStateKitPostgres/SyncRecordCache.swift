#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation

/// A record with the write stamp of its row (`updated_at` in microseconds; `nil` when unknown):
/// version and stamp together identify one write, also when a version is reused after rows were
/// deleted.
package struct StampedRecord: Sendable, Equatable {
    package var record: SyncRecord
    package var stamp: Int64?

    package init(_ record: SyncRecord, stamp: Int64?) {
        self.record = record
        self.stamp = stamp
    }
}

/// The records this instance knows per key, and the open change feeds, behind one lock.
///
/// Two ways in:
/// - ``apply(_:)`` — a commit this instance made or heard of: kept only when its version is
///   higher than the cached one (commits of one key arrive out of order across tasks).
/// - ``replaceAll(with:since:)`` and ``replace(key:with:since:)`` — what the table held when a
///   read started: authoritative, so a missing row removes the key and a lower version replaces
///   the cached one (rows deleted, `TRUNCATE`, a restore). A key the cache changed after the read
///   started (its stamp is newer than the read's ``token()``) is left alone: the change is newer
///   than the read.
///
/// Feeds get what changed, after the lock is released.
final class SyncRecordCache: Sendable {
    /// What a feed receives.
    enum Event: Sendable {
        /// A record newer than the cached one.
        case changed(SyncRecord)
        /// An authoritative read changed the cache: `all` is every cached record now, `differing`
        /// the records that differ from before (removed keys are absent from `all`).
        case replaced(all: [SyncRecord], differing: [SyncRecord])
    }

    private struct Entry {
        var stamped: StampedRecord
        var record: SyncRecord { stamped.record }
        /// The value of `Storage.stamp` when this entry last changed.
        var stamp: UInt64
    }

    private struct Storage {
        var entries: [String: Entry] = [:]
        /// Keys removed by an authoritative read, with the stamp of the removal.
        var removals: [String: UInt64] = [:]
        var stamp: UInt64 = 0
        var feeds: [Int: @Sendable (Event) -> Void] = [:]
        var finishers: [Int: @Sendable () -> Void] = [:]
        var nextFeedID = 0
        var isFinished = false

        mutating func nextStamp() -> UInt64 {
            stamp += 1
            return stamp
        }

        func changedSince(_ token: UInt64, key: String) -> Bool {
            (entries[key]?.stamp ?? 0) > token || (removals[key] ?? 0) > token
        }
    }

    private let storage = LockedBox(Storage())

    /// The cached record for `key`.
    func record(forKey key: String) -> SyncRecord? {
        storage.withLock { $0.entries[key]?.record }
    }

    /// The cached version and stamp of `key`.
    func stamped(forKey key: String) -> StampedRecord? {
        storage.withLock { $0.entries[key]?.stamped }
    }

    /// Every cached record.
    func allRecords() -> [SyncRecord] {
        storage.withLock { $0.entries.values.map(\.record) }
    }

    /// The number of cached records.
    var count: Int { storage.withLock { $0.entries.count } }

    /// A mark to pass to the `replace` calls for a read that starts now.
    func token() -> UInt64 {
        storage.withLock { $0.stamp }
    }

    /// Caches the records newer than the cached ones (a higher version, or the same version
    /// written by another write: a version reused after rows were deleted), yields those to every
    /// feed and returns them.
    @discardableResult
    func apply(_ records: [StampedRecord]) -> [SyncRecord] {
        let (newer, feeds) = storage.withLock { storage -> ([SyncRecord], [@Sendable (Event) -> Void]) in
            var newer: [SyncRecord] = []
            for stamped in records {
                let cached = storage.entries[stamped.record.key]?.stamped
                let cachedVersion = cached?.record.version ?? 0
                let isNewer = stamped.record.version > cachedVersion
                    || (stamped.record.version == cachedVersion && stamped.stamp != nil && cached?.stamp != nil && stamped.stamp != cached?.stamp)
                guard isNewer else { continue }
                storage.entries[stamped.record.key] = Entry(stamped: stamped, stamp: storage.nextStamp())
                newer.append(stamped.record)
            }
            return (newer, newer.isEmpty ? [] : Array(storage.feeds.values))
        }
        for feed in feeds {
            for record in newer { feed(.changed(record)) }
        }
        return newer
    }

    /// Takes `records` as the whole content of the store as of `token` (see the type's
    /// documentation), except the keys in `keeping` (rows that were there but damaged: the
    /// cache keeps what it knew of them); returns the number of keys repaired (changed, added
    /// or removed).
    @discardableResult
    func replaceAll(with records: [StampedRecord], since token: UInt64, keeping: Set<String> = []) -> Int {
        replace(records, removingOthers: true, onlyKey: nil, since: token, keeping: keeping)
    }

    /// Takes `record` as `key`'s row as of `token` (`nil`: no row); returns whether the cache
    /// changed.
    @discardableResult
    func replace(key: String, with record: StampedRecord?, since token: UInt64) -> Bool {
        replace(record.map { [$0] } ?? [], removingOthers: true, onlyKey: key, since: token, keeping: []) > 0
    }

    private func replace(_ records: [StampedRecord], removingOthers: Bool, onlyKey: String?, since token: UInt64, keeping: Set<String>) -> Int {
        let (event, feeds, repairs) = storage.withLock { storage -> (Event?, [@Sendable (Event) -> Void], Int) in
            var differing: [SyncRecord] = []
            var removed = 0
            var wentBack = false
            var seen = Set<String>()
            for stamped in records {
                let record = stamped.record
                seen.insert(record.key)
                guard !storage.changedSince(token, key: record.key) else { continue }
                let cached = storage.entries[record.key]?.stamped
                guard cached != stamped else { continue }
                if let cached, cached.record.version >= record.version {
                    if cached.record == record {
                        // Only the stamp was unknown: nothing a reader sees changes.
                        storage.entries[record.key]?.stamped = stamped
                        continue
                    }
                    wentBack = true
                }
                storage.entries[record.key] = Entry(stamped: stamped, stamp: storage.nextStamp())
                storage.removals[record.key] = nil
                differing.append(record)
            }
            if removingOthers {
                let candidates = onlyKey.map { [$0] } ?? Array(storage.entries.keys)
                for key in candidates where !seen.contains(key) && !keeping.contains(key) && storage.entries[key] != nil && !storage.changedSince(token, key: key) {
                    storage.entries[key] = nil
                    storage.removals[key] = storage.nextStamp()
                    removed += 1
                    wentBack = true
                }
            }
            let repairs = differing.count + removed
            guard repairs > 0 else { return (nil, [], 0) }
            let event: Event = wentBack || onlyKey == nil
                ? .replaced(all: storage.entries.values.map(\.record), differing: differing)
                : .changed(differing[0])
            return (event, Array(storage.feeds.values), repairs)
        }
        if let event {
            for feed in feeds { feed(event) }
        }
        return repairs
    }

    /// A new feed of events that keeps at most `limit` of them for a slow consumer (the newest);
    /// it is removed when its consumer stops. After ``finishFeeds()``, a new feed ends at once.
    func makeEventFeed(keepingNewest limit: Int) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(limit))
        guard let id = addFeed(send: { continuation.yield($0) }, finish: { continuation.finish() }) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.removeFeed(id) }
        return stream
    }

    /// A new change feed (``AppStateKit/SyncStore/changeFeed()``): each changed record, and a
    /// replacement after an authoritative read changed the cache. Bounded as
    /// `SyncChangeBuffer` says: a consumer that falls behind gets every cached record as one
    /// replacement.
    func makeChangeFeed() -> AsyncStream<SyncChange> {
        let buffer = SyncChangeBuffer { [weak self] in self?.allRecords() ?? [] }
        let added = addFeed(
            send: { event in
                switch event {
                case .changed(let record): buffer.push(.changed(record))
                case .replaced(let all, _): buffer.push(.replaced(all))
                }
            },
            finish: { buffer.finish() }
        )
        if let id = added {
            buffer.onEnd { [weak self] in self?.removeFeed(id) }
        } else {
            buffer.finish()
        }
        return buffer.makeStream()
    }

    /// Registers a feed; `nil` after ``finishFeeds()``.
    private func addFeed(send: @escaping @Sendable (Event) -> Void, finish: @escaping @Sendable () -> Void) -> Int? {
        storage.withLock { storage -> Int? in
            guard !storage.isFinished else { return nil }
            defer { storage.nextFeedID += 1 }
            storage.feeds[storage.nextFeedID] = send
            storage.finishers[storage.nextFeedID] = finish
            return storage.nextFeedID
        }
    }

    private func removeFeed(_ id: Int) {
        storage.withLock { storage in
            storage.feeds[id] = nil
            storage.finishers[id] = nil
        }
    }

    /// Ends every feed (the store shut down).
    func finishFeeds() {
        let finishers = storage.withLock { storage -> [@Sendable () -> Void] in
            storage.isFinished = true
            defer {
                storage.feeds.removeAll()
                storage.finishers.removeAll()
            }
            return Array(storage.finishers.values)
        }
        for finish in finishers { finish() }
    }
}
#endif
