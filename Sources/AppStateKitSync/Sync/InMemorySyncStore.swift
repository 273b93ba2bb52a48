import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// A ``SyncStore`` that keeps its records in memory: shared by everything in one process that
/// holds the same instance, gone when the last reference is released.
///
/// Use it in tests, or to simulate several processes sharing a store: give two applications the
/// same instance and each sees the other's writes through ``changeFeed()``, exactly as processes
/// sharing a real store would. An isolated application (`withIsolatedApplication`,
/// the `.isolatedApplication` test trait) gets a fresh one.
///
/// ```swift
/// let store = InMemorySyncStore()
/// Application.promote(\.syncStore, with: store)
/// // Act as another process: write the store directly.
/// _ = try await store.write(Data("true".utf8), forKey: "App/maintenance")
/// ```
///
/// Behaviour, as for every ``SyncStore``:
/// - Thread-safe: every method may be called from any thread or task at once.
/// - Each committed write of a key increases its version by one, starting at 1; removals
///   (`nil`) keep the key as a tombstone with a new version.
/// - ``compareAndSet(_:forKey:expectedVersion:)`` commits only when the key's version is the
///   expected one (0 for a key never written), atomically.
/// - ``SyncLimits`` are enforced: an over-long key or an oversized value throws
///   ``SyncStoreError`` and commits nothing.
/// - Every committed record is delivered to every live ``changeFeed()`` feed. Two writes
///   committed at the same moment by different threads may arrive in either order; compare
///   versions.
/// - After ``shutDown()`` every feed ends and every operation throws ``SyncStoreError`` of kind
///   `shutDown`; ``statusUpdates()`` then says ``SyncStoreStatus/stopped``.
/// - ``replaceContents(with:)`` replaces every record behind the writers' backs, as a restored
///   backup would, and tells ``changeFeed()`` feeds with ``SyncChange/replaced(_:)``.
public final class InMemorySyncStore: SyncStore, Sendable {
    private let storage = LockedBox(Storage())

    private struct Storage {
        var records: [String: SyncRecord] = [:]
        var feeds = Subscribers<SyncFeed>()
        var isShutDown = false

        func checkRunning(key: String) throws {
            if isShutDown {
                throw SyncStoreError(.shutDown, key: key, detail: "the in-memory sync store was shut down")
            }
        }

        mutating func commit(_ value: Data?, forKey key: String) -> SyncRecord {
            let record = SyncRecord(key: key, value: value, version: (records[key]?.version ?? 0) + 1)
            records[key] = record
            return record
        }
    }
    /// When the store was created: its values are live since then.
    private let createdAt = Date()

    /// Creates an empty store.
    public init() {}

    deinit {
        for feed in storage.withLock({ $0.feeds.removeAll() }) {
            feed.finish()
        }
    }

    /// The record for `key`, or `nil` if it was never written.
    ///
    /// - Throws: ``SyncStoreError`` of kind `invalidKey` for a key ``SyncLimits`` refuses.
    public func cachedRecord(forKey key: String) throws -> SyncRecord? {
        try SyncLimits.check(key: key, value: nil)
        return try storage.withLock { storage in
            try storage.checkRunning(key: key)
            return storage.records[key]
        }
    }

    /// The record for `key`, or `nil` if it was never written (same as ``cachedRecord(forKey:)``).
    public func fetchRecord(forKey key: String) async throws -> SyncRecord? {
        try cachedRecord(forKey: key)
    }

    /// Commits `value` (removes the key for `nil`) and returns the new record.
    public func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        try SyncLimits.check(key: key, value: value)
        let (record, feeds) = try storage.withLock { storage in
            try storage.checkRunning(key: key)
            return (storage.commit(value, forKey: key), Array(storage.feeds.all))
        }
        deliver(record, to: feeds)
        return record
    }

    /// Commits `value` only if `key` is at `expectedVersion` (0: never written).
    public func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try SyncLimits.check(key: key, value: value)
        let (outcome, feeds): (SyncCommit, [SyncFeed]) = try storage.withLock { storage in
            try storage.checkRunning(key: key)
            let current = storage.records[key]
            guard (current?.version ?? 0) == expectedVersion else { return (.conflict(current: current), []) }
            return (.committed(storage.commit(value, forKey: key)), Array(storage.feeds.all))
        }
        if case let .committed(record) = outcome {
            deliver(record, to: feeds)
        }
        return outcome
    }

    /// Every record, tombstones included, in no particular order.
    public func snapshot() async throws -> [SyncRecord] {
        try storage.withLock { storage in
            try storage.checkRunning(key: "")
            return Array(storage.records.values)
        }
    }

    /// A new feed of every record committed from now on, and of every
    /// ``replaceContents(with:)`` as ``SyncChange/replaced(_:)``; it ends when the consuming
    /// task is cancelled or the store shuts down.
    ///
    /// At most 1,024 changes wait for a slow consumer;
    /// past that they collapse into one ``SyncChange/replaced(_:)`` with the records the store
    /// holds when the consumer takes it (see ``SyncStore/changeFeed()``).
    public func changeFeed() -> AsyncStream<SyncChange> {
        let buffer = SyncChangeBuffer { [weak self] in self?.currentRecords() ?? [] }
        subscribe(.changes(buffer))
        return buffer.makeStream()
    }

    /// ``SyncStoreStatus/live(since:)`` (since the store was created), then
    /// ``SyncStoreStatus/stopped`` when it shuts down (at once if it has).
    public func statusUpdates() -> AsyncStream<SyncStoreStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStoreStatus.self, bufferingPolicy: .bufferingNewest(SyncFeed.statusBuffer))
        if !storage.withLock({ $0.isShutDown }) {
            continuation.yield(.live(since: createdAt))
        }
        // After a shutdown this yields `stopped` and ends the feed.
        subscribe(.statuses(continuation))
        return stream
    }

    /// Replaces every record with `records` (their versions as given, even lower than before),
    /// as restoring a backup or truncating a table does behind the writers' backs, and delivers
    /// ``SyncChange/replaced(_:)`` to every ``changeFeed()`` feed. Later writes of a key continue above its new version.
    ///
    /// - Throws: ``SyncStoreError`` of kind `invalidKey` or `valueTooLarge` for a record
    ///   ``SyncLimits`` refuses (nothing is replaced), `shutDown` after ``shutDown()``.
    public func replaceContents(with records: [SyncRecord]) throws {
        for record in records {
            try SyncLimits.check(key: record.key, value: record.value)
        }
        let feeds: [SyncFeed] = try storage.withLock { storage in
            try storage.checkRunning(key: "")
            storage.records = Dictionary(records.map { ($0.key, $0) }, uniquingKeysWith: { $0.version >= $1.version ? $0 : $1 })
            return Array(storage.feeds.all)
        }
        let replacement = SyncChange.replaced(records)
        for feed in feeds { feed.send(replacement) }
    }

    /// Registers `feed`, removed again when its consumer stops (or finishes it at once after a
    /// shutdown).
    private func subscribe(_ feed: SyncFeed) {
        let token: UInt64? = storage.withLock { storage in
            guard !storage.isShutDown else { return nil }
            return storage.feeds.add(feed)
        }
        guard let token else {
            feed.finish()
            return
        }
        feed.onTermination { [weak self] in self?.removeFeed(token) }
    }

    /// Ends every feed and makes every later operation throw ``SyncStoreError`` of kind
    /// `shutDown`.
    public func shutDown() {
        let feeds = storage.withLock { storage in
            storage.isShutDown = true
            return storage.feeds.removeAll()
        }
        for feed in feeds {
            feed.finish()
        }
    }

    /// The number of live feeds (``changeFeed()``, ``statusUpdates()``), for tests
    /// and leak checks.
    public var feedCount: Int {
        storage.withLock { $0.feeds.count }
    }

    /// Every record, tombstones included: what a feed that fell behind gets as a replacement.
    private func currentRecords() -> [SyncRecord] {
        storage.withLock { Array($0.records.values) }
    }

    private func removeFeed(_ token: UInt64) {
        storage.withLock { _ = $0.feeds.remove(token) }
    }

    private func deliver(_ record: SyncRecord, to feeds: [SyncFeed]) {
        for feed in feeds {
            feed.send(.changed(record))
        }
    }
}
