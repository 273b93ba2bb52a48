#if PostgreSQL
import AppStateKit
import Foundation
import PostgresNIO

/// A ``AppStateKit/SyncStore`` on PostgreSQL, for values shared by every instance of a fleet.
///
/// All instances that use the same database and ``table`` share one map of keys to versioned JSON
/// values:
///
/// ```swift
/// let client = PostgresClient(configuration: configuration)
/// let store = PostgresSyncStore(client: client)
/// Application.promote(\.syncStore, with: store)
/// let services = ServiceGroup(services: [client, store], logger: logger)
/// try await services.run()
/// ```
///
/// - The table (created by ``run()`` if missing) has the columns `key text PRIMARY KEY`,
///   `value json` (`NULL` for a removed key), `version bigint` and `updated_at timestamptz`.
/// - Each write is one SQL statement, so one transaction: it upserts the row with
///   `version = version + 1` and calls `pg_notify` on the channel named like the table with
///   `"<version> <key>"` (never the value). PostgreSQL delivers notifications only when the
///   transaction commits, so listeners hear only committed changes.
/// - ``run()`` `LISTEN`s on that channel on one leased connection, loads a snapshot of the table
///   into a local cache, and refreshes a key when a notification names a version newer than the
///   cached one. ``cachedRecord(forKey:)`` answers from that cache without I/O.
/// - When the connection is lost, reads keep serving the cache (values as of the moment the
///   connection was lost, see ``status``) and writes fail with ``AppStateKit/SyncStoreError`` of
///   kind `unavailable`. ``run()`` reconnects every ``reconnectDelay``; once listening again it
///   reloads a full snapshot (notifications sent meanwhile are lost) and yields every key that
///   changed on ``changes()``.
/// - Keys and values are checked against ``AppStateKit/SyncLimits`` before any I/O.
///
/// The store runs like `PostgresClient`: call ``run()`` in a long-running task, or put the store
/// in a swift-service-lifecycle `ServiceGroup` after the client. Writes need the client's `run()`
/// to be active, not the store's; reads of other instances' changes need the store's.
public final class PostgresSyncStore: SyncStore, Sendable {
    /// The client that runs every query.
    public let client: PostgresClient
    /// The table that holds the records; also the name of the notification channel.
    public let table: String
    /// How long a write, read or snapshot may take before it fails as `unavailable`.
    public let operationTimeout: Duration
    /// How long ``run()`` waits before reconnecting after the connection was lost.
    public let reconnectDelay: Duration
    /// How often ``run()`` checks the listening connection with `SELECT 1` while no
    /// notification arrives, so a silently dead connection is noticed within this time.
    public let heartbeatInterval: Duration
    /// The logger postgres-nio logs the store's queries to (at debug level).
    public let queryLogger: Logger

    let cache = SyncRecordCache()
    let connection = ConnectionStatusBox()
    let runGuard = RunGuard()

    /// Creates a store on `client`'s database.
    ///
    /// - Parameters:
    ///   - client: The client to run queries on; run it (`client.run()`) alongside the store.
    ///   - table: The table's name: 1 to 50 characters of `a`–`z`, `0`–`9` and `_`, not
    ///     starting with a digit. It is also the `LISTEN` channel.
    ///   - operationTimeout: How long one operation may wait for the database before it fails.
    ///   - reconnectDelay: The pause between reconnection attempts.
    ///   - heartbeatInterval: How often the listening connection is checked when idle.
    ///   - queryLogger: Where postgres-nio logs the store's queries; the store's own errors go to
    ///     AppStateKit's `\.logger`.
    ///
    /// - Precondition: `table` is a valid name (a programmer error otherwise).
    public init(
        client: PostgresClient,
        table: String = "appstatekit_sync",
        operationTimeout: Duration = .seconds(10),
        reconnectDelay: Duration = .milliseconds(500),
        heartbeatInterval: Duration = .seconds(5),
        queryLogger: Logger = Logger(label: "AppStateKitPostgres")
    ) {
        precondition(
            Self.isValidTableName(table),
            "AppStateKit: PostgresSyncStore's table name \"\(table)\" is not usable: use 1 to 50 characters of a-z, 0-9 and _, not starting with a digit"
        )
        self.client = client
        self.table = table
        self.operationTimeout = operationTimeout
        self.reconnectDelay = reconnectDelay
        self.heartbeatInterval = heartbeatInterval
        self.queryLogger = queryLogger
    }

    static func isValidTableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 50, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }

    /// Where the store stands with the database: see ``PostgresSyncStore/Status``.
    public var status: Status { connection.status }

    /// The cached record for `key`: the newest version this instance has seen, without I/O.
    ///
    /// While connected it lags other instances' commits by the notification's delivery and one
    /// fetch (milliseconds on a LAN); while disconnected it holds what was known when the
    /// connection was lost (``status`` says since when). Never throws.
    public func cachedRecord(forKey key: String) throws -> SyncRecord? {
        cache.record(forKey: key)
    }

    /// Reads `key`'s row from the database now, and refreshes the cache with it.
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `invalidKey`, `unavailable` (no answer
    ///   within ``operationTimeout``, or not connected) or `corruptRecord` (the row has no
    ///   version).
    public func fetchRecord(forKey key: String) async throws -> SyncRecord? {
        try SyncLimits.check(key: key, value: nil)
        let record = try await perform("read", key: key) { [self] in
            try await selectRecord(key: key, on: nil)
        }
        if let record { cache.apply([record]) }
        return record
    }

    /// Writes `value` (`nil` removes the key) whatever the current version, in one transaction
    /// that bumps the version and notifies the other instances; returns once committed.
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `invalidKey`, `valueTooLarge`,
    ///   `typeMismatch` (the bytes are not UTF-8 JSON text), or `unavailable`. After an
    ///   `unavailable` error the write did not happen, except when the connection was lost after
    ///   the statement was sent: then the error's detail says the outcome is unknown.
    public func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        let text = try Self.checkedText(value, key: key)
        let record = try await perform("write", key: key) { [self] in
            guard let version = try await committedVersion(of: upsertQuery(key: key, value: text)) else {
                throw SyncStoreError(.corruptRecord, key: key, detail: "PostgreSQL returned no version for the upsert into table \(table)")
            }
            return SyncRecord(key: key, value: value, version: version)
        }
        cache.apply([record])
        return record
    }

    /// Writes `value` only if `key`'s version is `expectedVersion` (0: no row yet), in one
    /// transaction with its notification. On a lost race returns the row now in the table.
    ///
    /// - Throws: The errors of ``write(_:forKey:)``.
    public func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        let text = try Self.checkedText(value, key: key)
        let commit = try await perform("compare-and-set", key: key) { [self] () -> SyncCommit in
            let query = expectedVersion == 0
                ? insertIfAbsentQuery(key: key, value: text)
                : updateIfVersionQuery(key: key, value: text, expectedVersion: expectedVersion)
            if let version = try await committedVersion(of: query) {
                return .committed(SyncRecord(key: key, value: value, version: version))
            }
            return .conflict(current: try await selectRecord(key: key, on: nil))
        }
        switch commit {
        case .committed(let record): cache.apply([record])
        case .conflict(let current): if let current { cache.apply([current]) }
        }
        return commit
    }

    /// Every row of the table, tombstones included; rows the store cannot read (no version) are
    /// reported through the logger and left out. Refreshes the cache.
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `unavailable`.
    public func snapshot() async throws -> [SyncRecord] {
        let records = try await perform("snapshot", key: "") { [self] in
            try await selectAll(on: nil)
        }
        cache.apply(records)
        return records
    }

    /// A new feed of records as this instance learns of commits: its own writes once committed,
    /// other instances' writes when their notification arrives, and every key that differs
    /// after a reconnection's snapshot. Only records newer than the cache's are delivered. The
    /// feed ends when the consuming task is cancelled or ``run()`` returns.
    public func changes() -> AsyncStream<SyncRecord> {
        cache.makeFeed()
    }

    /// The value's JSON as text for a `json` parameter, after the limits check.
    static func checkedText(_ value: Data?, key: String) throws -> String? {
        try SyncLimits.check(key: key, value: value)
        guard let value else { return nil }
        guard let text = String(validating: value, as: UTF8.self) else {
            throw SyncStoreError(.typeMismatch, key: key, detail: "the value is not UTF-8 JSON text, which a json column needs")
        }
        return text
    }
}
#endif
