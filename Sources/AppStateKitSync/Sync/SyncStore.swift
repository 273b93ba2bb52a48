import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// Where ``Application/SyncState`` values live: a store shared by every process (and, for a
/// networked store, every machine) of an app.
///
/// The store is the `\.syncStore` dependency. AppStateKit ships an embedded store for processes
/// on one machine and, in the `AppStateKitPostgres` product, a PostgreSQL store for fleets; tests
/// override the dependency like any other.
///
/// The model is a map from keys to versioned JSON values:
/// - Each committed write of a key increases its ``SyncRecord/version`` (by at least one), so
///   versions of one key are totally ordered and never reused. A key that was never written has
///   version 0 and no record.
/// - A removal is a write of `nil`: it keeps the key with a new version (a tombstone), so a
///   compare-and-set can tell "removed after I read it" from "never written".
/// - ``cachedRecord(forKey:)`` answers from what the store already knows locally and never waits
///   on the network; the `async` calls talk to the backing store itself.
/// - ``changeFeed()`` is how a store is followed: it delivers every record the store learns
///   about (writes of this process and of others) after they were committed — consumers must
///   tolerate duplicates and records older than ones they already hold (compare versions) —
///   and says when the store's data was replaced behind its back (a deleted file, a restored
///   database): a ``SyncChange/replaced(_:)`` is authoritative, whatever the versions. Its
///   buffering is bounded: a consumer that falls behind gets a replacement instead of every
///   change. ``Application/SyncState`` caches consume it. (``changes()``, the record-only feed
///   of earlier releases, is deprecated and derived from it.)
/// - ``statusUpdates()`` and ``waitUntilReady(timeout:)`` say whether the store's values are
///   loaded; ``keys()`` lists the keys that hold a value; ``delete(forKey:)`` removes a key for
///   good.
///
/// Every requirement added after the first five has a default implementation, so a store
/// written against the smaller protocol still conforms: see each one for what the default does.
public protocol SyncStore: Sendable {
    /// The newest record this store knows for `key` without a network round trip, or `nil`
    /// when it knows none.
    ///
    /// - Throws: When the local copy cannot be read (for a file-backed store, an I/O error).
    func cachedRecord(forKey key: String) throws -> SyncRecord?

    /// The record the backing store holds for `key` now (a round trip for networked stores).
    func fetchRecord(forKey key: String) async throws -> SyncRecord?

    /// Commits `value` for `key` (`nil` removes it) unconditionally and returns the committed
    /// record, once it is durable in the backing store.
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord

    /// Commits `value` for `key` (`nil` removes it) only if the key's current version is
    /// `expectedVersion` (0: never written), atomically across every process sharing the store.
    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit

    /// Commits `transform(current record)` for `key` while holding off every other writer of the
    /// key in every process; returns the committed record, or `nil` when the store cannot hold
    /// writers off (the default).
    ///
    /// Deprecated: a store that can hold writers off says so by adopting
    /// ``ExclusiveUpdatingSyncStore`` (whose `updateExclusively(forKey:_:)` returns the record,
    /// never `nil`), and the library checks for that conformance. A store
    /// of an earlier release that implements only this requirement still works: the library
    /// calls it when the store doesn't adopt the protocol, and takes `nil` as "can't".
    @available(*, deprecated, message: "adopt ExclusiveUpdatingSyncStore, whose updateExclusively returns the committed record")
    func updateExclusively(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord?

    /// Every record in the store, tombstones included: what a consumer that may have missed
    /// changes reloads from.
    func snapshot() async throws -> [SyncRecord]

    /// Records as the store learns of committed changes, from this process and others: each
    /// ``SyncChange/changed(_:)`` of ``changeFeed()`` as its record, and each record of a
    /// ``SyncChange/replaced(_:)`` one by one (a record feed can't say "replaced", so a consumer
    /// comparing versions misses a replacement: follow ``changeFeed()``). Each call returns a
    /// new, independent feed that ends when the consuming task is cancelled or the store shuts
    /// down.
    ///
    /// The default derives it from ``changeFeed()``; stores need not implement it.
    @available(*, deprecated, message: "follow the store with changeFeed(), which also says when the store's data was replaced")
    func changes() -> AsyncStream<SyncRecord>

    /// The store's change feed: records as the store learns of committed changes, from this
    /// process and others, and replacements of its data. Each call returns a new, independent
    /// feed of ``SyncChange`` elements that ends when the consuming task is cancelled or the
    /// store shuts down.
    ///
    /// A store whose versions can go backwards (its file was deleted or replaced, its database
    /// restored, truncated or failed over, a reconciliation found rows missing) delivers a
    /// ``SyncChange/replaced(_:)`` holding everything it has then; consumers take it whatever
    /// the versions (see ``SyncChange``).
    ///
    /// **Bounded buffering.** A feed must not hold an unbounded number of changes for a consumer
    /// that is slower than the store's commits. The stores AppStateKit ships (``InMemorySyncStore``,
    /// ``LocalSyncStore``, `PostgresSyncStore`) keep at most 1,024 changes per feed; when one
    /// more arrives they drop the waiting changes and the consumer's next element is one
    /// ``SyncChange/replaced(_:)`` with everything the store holds when the consumer takes it,
    /// which contains every dropped change (intermediate versions of a key are skipped).
    ///
    /// Every store implements this. The default, for stores written against an earlier
    /// release that implement only ``changes()``, wraps each of its records as
    /// ``SyncChange/changed(_:)`` (deprecated: it cannot say "replaced", and its buffering is
    /// the old feed's).
    func changeFeed() -> AsyncStream<SyncChange>

    /// The store's status now, then every change of it, as a new stream per call that ends when
    /// the consuming task is cancelled or the store stops (after delivering
    /// ``SyncStoreStatus/stopped``).
    ///
    /// The default delivers ``SyncStoreStatus/live(since:)`` (the moment of the call) and
    /// nothing else: right for a store whose values are always loaded.
    func statusUpdates() -> AsyncStream<SyncStoreStatus>

    /// Returns once the store's values are loaded (its status ``SyncStoreStatus/isReady``): a
    /// server calls it before serving, so it never serves initial values by surprise.
    ///
    /// The default waits on ``statusUpdates()``.
    ///
    /// - Throws: ``SyncStoreError`` of kind `unavailable` when the store is not ready within
    ///   `timeout` (the message gives its last status), `shutDown` when it stopped, and
    ///   `CancellationError` when the calling task is cancelled.
    func waitUntilReady(timeout: Duration) async throws

    /// The keys that hold a value now (tombstones left out), sorted, as the backing store has
    /// them (a round trip for networked stores).
    ///
    /// The default takes them from ``snapshot()``.
    func keys() async throws -> [String]

    /// Removes `key` for good: commits a removal (a tombstone with a new version, delivered to
    /// feeds like any write) that the store may forget entirely once no process can still hold
    /// an older version (see the store's documentation for its retention). Returns the
    /// removal's record. A key removed for good can be written again later; its versions keep
    /// increasing.
    ///
    /// The default writes `nil` (``write(_:forKey:)``): a tombstone the store keeps.
    func delete(forKey key: String) async throws -> SyncRecord
}

extension SyncStore {
    /// Returns `nil`: the store can't hold writers off, so callers retry
    /// ``compareAndSet(_:forKey:expectedVersion:)`` instead.
    @available(*, deprecated, message: "adopt ExclusiveUpdatingSyncStore, whose updateExclusively returns the committed record")
    public func updateExclusively(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord? {
        nil
    }
}

/// One key's committed state in a ``SyncStore``.
public struct SyncRecord: Sendable, Hashable, CustomStringConvertible {
    /// The key, as ``Application/SyncState`` builds it from the declaration's feature and id.
    public var key: String
    /// The value's JSON encoding, or `nil` when the key was removed.
    public var value: Data?
    /// Increases with every committed write of `key`; never 0 for an existing record.
    public var version: Int64

    /// Creates a record.
    public init(key: String, value: Data?, version: Int64) {
        self.key = key
        self.value = value
        self.version = version
    }

    /// `key@version` and the value's size, for logs.
    public var description: String {
        "\(key)@\(version) (\(value.map { "\($0.count) bytes" } ?? "removed"))"
    }
}

/// The outcome of ``SyncStore/compareAndSet(_:forKey:expectedVersion:)``.
public enum SyncCommit: Sendable, Hashable {
    /// The write was committed as this record.
    case committed(SyncRecord)
    /// Another write came first; this is the record now in the store (`nil`: none).
    case conflict(current: SyncRecord?)
}
