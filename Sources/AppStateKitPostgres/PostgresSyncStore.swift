#if PostgreSQL
import AppStateKit
import Foundation
import PostgresNIO

/// A ``AppStateKit/SyncStore`` on PostgreSQL, for values shared by every instance of a fleet.
///
/// All instances that use the same database, table and namespace share one map of keys to
/// versioned JSON values:
///
/// ```swift
/// let client = PostgresClient(configuration: configuration)
/// let store = PostgresSyncStore(client: client)
/// Application.promote(\.syncStore, with: store)
/// // The client first: a ServiceGroup shuts services down in reverse order.
/// let services = ServiceGroup(services: [client, store], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await services.run()
/// ```
///
/// - The table (``migrationSQL(configuration:)`` prints it) has the columns `namespace`, `key`
///   (together the primary key), `value json` (`NULL` for a removed key), `version bigint` and
///   `updated_at timestamptz`. ``run()`` creates it only when `to_regclass` finds none and
///   ``Configuration/createsTable`` is set; otherwise the store issues no DDL.
/// - Each write is one transaction, pinned to `READ COMMITTED`, with `statement_timeout` and
///   `lock_timeout` set to ``Configuration/operationTimeout``: it upserts the row with
///   `version = version + 1` and calls `pg_notify` with the version and key (never the value).
///   PostgreSQL delivers notifications only when the transaction commits.
/// - ``run()`` `LISTEN`s on one leased connection (unless
///   ``Configuration/listensForNotifications`` is off), loads a snapshot into a local cache,
///   refreshes a key when a notification names a version other than the cached one, and every
///   ``Configuration/reconcileInterval`` compares the cache with the table and repairs every
///   difference — a snapshot is authoritative, so rows deleted or versions gone backwards
///   (`TRUNCATE`, a restore) replace what the cache held. ``cachedRecord(forKey:)`` answers from
///   the cache without I/O.
/// - An operation issued before ``run()`` has found (or created) the table waits for it, within
///   the operation timeout.
/// - When the connection is lost, reads keep serving the cache (``currentStatus`` says since when) and
///   writes fail with ``AppStateKit/SyncStoreError`` of kind `unavailable`. ``run()`` reconnects
///   every ``Configuration/reconnectDelay`` and reloads a snapshot.
/// - Keys and values are checked against ``AppStateKit/SyncLimits`` before any I/O.
///
/// The store runs like `PostgresClient`: call ``run()`` in a long-running task, or put the store
/// in a swift-service-lifecycle `ServiceGroup` after the client.
public final class PostgresSyncStore: SyncStore, Sendable {
    /// The client that runs every query.
    public let client: PostgresClient
    /// How the store uses its database.
    public let configuration: Configuration

    /// The table's name (``Configuration/table``).
    public var table: String { configuration.table }
    /// ``Configuration/operationTimeout``.
    public var operationTimeout: Duration { configuration.operationTimeout }
    /// ``Configuration/reconnectDelay``.
    public var reconnectDelay: Duration { configuration.reconnectDelay }
    /// ``Configuration/heartbeatInterval``.
    public var heartbeatInterval: Duration { configuration.heartbeatInterval }
    /// ``Configuration/queryLogger``.
    public var queryLogger: Logger { configuration.queryLogger }

    /// The table as SQL: quoted, and schema-qualified when a schema is set.
    let qualifiedTable: String
    /// The table's name for messages: `schema.table` or `table`.
    let tableDescription: String
    /// The namespace column's value ("" without a namespace).
    let namespaceValue: String
    /// The LISTEN/NOTIFY channel: the table's name and the namespace.
    let channel: String

    let cache = SyncRecordCache()
    let connection = ConnectionStatusBox()
    let runGuard = RunGuard()
    /// Opens once ``run()`` has found or created the table.
    let tablePrepared = OneShotSignal()
    /// Opens once values are loaded: a snapshot, or the last-known-good copy.
    let valuesLoaded = OneShotSignal()
    /// Opens once a snapshot from the database is loaded.
    let databaseLoaded = OneShotSignal()
    let metrics: PostgresSyncStoreMetrics
    /// Notifications heard and not yet handled (bounded, coalesced per key).
    let notificationBuffer = NotificationBuffer()
    /// Damaged rows, each reported once.
    let damage = DamageReporter { Application.logger.error($0) }
    /// Coalesced requests to save the last-known-good copy.
    let lastKnownGoodRequests = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let lastKnownGood: LastKnownGoodFile?

    /// Creates a store on `client`'s database, used as `configuration` says.
    ///
    /// - Precondition: the table, schema and namespace follow their rules (see
    ///   ``Configuration``), and the channel they make (`schema.table/namespace`) has at most
    ///   63 bytes, PostgreSQL's limit (a programmer error otherwise).
    public init(client: PostgresClient, configuration: Configuration) {
        Self.validateNames(configuration)
        self.client = client
        self.configuration = configuration
        self.qualifiedTable = (configuration.schema.map { "\"\($0)\"." } ?? "") + "\"\(configuration.table)\""
        self.tableDescription = (configuration.schema.map { "\($0)." } ?? "") + configuration.table
        self.namespaceValue = configuration.namespace ?? ""
        self.channel = tableDescription + (configuration.namespace.map { "/\($0)" } ?? "")
        precondition(
            channel.utf8.count <= 63,
            "AppStateKit: PostgresSyncStore's notification channel \"\(channel)\" (schema.table/namespace) is longer than PostgreSQL's 63 bytes: shorten the table, schema or namespace"
        )
        self.lastKnownGood = configuration.lastKnownGoodFile.map(LastKnownGoodFile.init(url:))
        self.metrics = PostgresSyncStoreMetrics(factory: configuration.metricsFactory, table: tableDescription, namespace: namespaceValue)
    }

    /// Creates a store on `client`'s database with the default ``Configuration`` and the given
    /// settings.
    ///
    /// - Parameters:
    ///   - client: The client to run queries on; run it (`client.run()`) alongside the store.
    ///   - table: ``Configuration/table``.
    ///   - operationTimeout: ``Configuration/operationTimeout``.
    ///   - reconnectDelay: ``Configuration/reconnectDelay``.
    ///   - heartbeatInterval: ``Configuration/heartbeatInterval``.
    ///   - queryLogger: ``Configuration/queryLogger``.
    ///
    /// - Precondition: `table` is a valid name (a programmer error otherwise).
    public convenience init(
        client: PostgresClient,
        table: String = "appstatekit_sync",
        operationTimeout: Duration = .seconds(10),
        reconnectDelay: Duration = .milliseconds(500),
        heartbeatInterval: Duration = .seconds(5),
        queryLogger: Logger = Logger(label: "AppStateKitPostgres")
    ) {
        var configuration = Configuration()
        configuration.table = table
        configuration.operationTimeout = operationTimeout
        configuration.reconnectDelay = reconnectDelay
        configuration.heartbeatInterval = heartbeatInterval
        configuration.queryLogger = queryLogger
        self.init(client: client, configuration: configuration)
    }

    /// Stops with a message when `configuration`'s table, schema or namespace breaks its rule
    /// (see ``Configuration``): `init` and the static SQL helpers check the same way.
    static func validateNames(_ configuration: Configuration) {
        precondition(
            isValidIdentifier(configuration.table),
            "AppStateKit: PostgresSyncStore's table name \"\(SyncInputBounds.escapedPrefix(configuration.table))\" is not usable: use 1 to 50 characters of a-z, 0-9 and _, not starting with a digit"
        )
        if let schema = configuration.schema {
            precondition(
                isValidIdentifier(schema),
                "AppStateKit: PostgresSyncStore's schema name \"\(SyncInputBounds.escapedPrefix(schema))\" is not usable: use 1 to 50 characters of a-z, 0-9 and _, not starting with a digit"
            )
        }
        if let namespace = configuration.namespace {
            precondition(
                isValidNamespace(namespace),
                "AppStateKit: PostgresSyncStore's namespace \"\(SyncInputBounds.escapedPrefix(namespace))\" is not usable: use 1 to 40 characters of A-Z, a-z, 0-9, _, - and ."
            )
        }
    }

    static func isValidIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 50, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }

    static func isValidNamespace(_ namespace: String) -> Bool {
        !namespace.isEmpty && namespace.utf8.count <= 40 && namespace.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// Where the store stands with the database, in the deprecated ``PostgresSyncStore/Status``
    /// view: ``currentStatus`` gives the same as ``AppStateKit/SyncStoreStatus``.
    @available(*, deprecated, message: "use currentStatus, a SyncStoreStatus")
    public var status: Status { Status(connection.status) }

    /// Returns once the store serves loaded values: a snapshot of the table, or (when
    /// PostgreSQL cannot be reached at boot) the ``Configuration/lastKnownGoodFile`` copy — its
    /// ``statusUpdates()`` status is `live` or `stale`. Call it before serving traffic, so no
    /// request sees initial values by surprise:
    ///
    /// ```swift
    /// try await store.waitUntilReady(timeout: .seconds(15))
    /// ```
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `unavailable` when no values were loaded
    ///   within `timeout` (the message gives the status, with the last failure), or `shutDown`
    ///   when ``run()`` returned first.
    public func waitUntilReady(timeout: Duration) async throws {
        try await SyncReadiness.wait(for: statusUpdates(), timeout: timeout, store: "PostgresSyncStore (table \(tableDescription))")
    }

    /// The cached record for `key`: the newest version this instance has seen, without I/O.
    ///
    /// While connected it lags other instances' commits by the notification's delivery and one
    /// fetch (milliseconds on a LAN); while disconnected it holds what was known when the
    /// connection was lost (``currentStatus`` says since when). Never throws.
    public func cachedRecord(forKey key: String) throws -> SyncRecord? {
        cache.record(forKey: key)
    }

    /// Reads `key`'s row from the database now, and refreshes the cache with it.
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `invalidKey`, `unavailable` (no answer
    ///   within ``Configuration/operationTimeout``, or not connected), `refused` (the role or
    ///   the table is not set up: the message says what to do) or `corruptRecord` (the row is
    ///   damaged — a version, time or size outside the bounds, written by someone else: the
    ///   message says why and that a write replaces it; the cache keeps what it knew).
    public func fetchRecord(forKey key: String) async throws -> SyncRecord? {
        try SyncLimits.check(key: key, value: nil)
        let token = cache.token()
        let read = try await perform("read", key: key, writes: false) { [self] in
            try await transaction(on: nil) { connection in
                try await self.readRow(key: key, on: connection)
            }
        }
        switch read {
        case .absent:
            cache.replace(key: key, with: nil, since: token)
            return nil
        case .record(let record):
            cache.replace(key: key, with: record, since: token)
            return record.record
        case .damaged(let reason):
            throw damagedRowError(key: key, reason)
        }
    }

    /// The error for a read that met `key`'s damaged row.
    func damagedRowError(key: String, _ reason: SyncRow.Damage) -> SyncStoreError {
        SyncStoreError(.corruptRecord, key: key, detail: "the row in table \(tableDescription) is damaged: \(reason); it is skipped (the cache keeps what it knew). Any write of the key (write(_:forKey:)) replaces the row, or fix or delete it as the table's owner")
    }

    /// Writes `value` (`nil` removes the key) whatever the current version, in one transaction
    /// that bumps the version and notifies the other instances; returns once committed.
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `invalidKey`, `valueTooLarge`,
    ///   `typeMismatch` (the bytes are not UTF-8 JSON text), `refused` (a missing privilege or
    ///   table, or a value PostgreSQL rejects: nothing was written, the message says what to
    ///   do) or `unavailable`. After `unavailable` the write did not happen, except when the
    ///   connection was lost or the deadline passed after the statement was sent: then the
    ///   error's detail says the outcome is unknown.
    public func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        let text = try Self.checkedText(value, key: key)
        let record = try await performWrite("write", key: key) { [self] in
            let written = try await transaction(on: nil) { connection in
                try await self.writtenVersion(of: self.upsertQuery(key: key, value: text), on: connection)
            }
            guard let written else {
                throw SyncStoreError(.corruptRecord, key: key, detail: "PostgreSQL returned no version for the upsert into table \(tableDescription)")
            }
            return StampedRecord(SyncRecord(key: key, value: value, version: written.version), stamp: written.stamp)
        }
        metrics.countWrite(.committed)
        cache.apply([record])
        return record.record
    }

    /// Writes `value` only if `key`'s version is `expectedVersion` (0: no row yet), in one
    /// transaction with its notification. On a lost race returns the row now in the table.
    ///
    /// - Throws: The errors of ``write(_:forKey:)``.
    public func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        let text = try Self.checkedText(value, key: key)
        let outcome = try await performWrite("compare-and-set", key: key) { [self] () -> (committed: Bool, record: StampedRecord?) in
            let query = expectedVersion == 0
                ? insertIfAbsentQuery(key: key, value: text)
                : updateIfVersionQuery(key: key, value: text, expectedVersion: expectedVersion)
            return try await transaction(on: nil) { connection in
                if let written = try await self.writtenVersion(of: query, on: connection) {
                    return (true, StampedRecord(SyncRecord(key: key, value: value, version: written.version), stamp: written.stamp))
                }
                switch try await self.readRow(key: key, on: connection) {
                case .absent: return (false, nil)
                case .record(let record): return (false, record)
                case .damaged(let reason): throw self.damagedRowError(key: key, reason)
                }
            }
        }
        metrics.countWrite(outcome.committed ? .committed : .conflict)
        if let record = outcome.record { cache.apply([record]) }
        if outcome.committed, let record = outcome.record?.record {
            return .committed(record)
        }
        return .conflict(current: outcome.record?.record)
    }

    /// Every row of the store's namespace, tombstones included; damaged rows (a version, time or
    /// size outside the bounds) are reported once through the logger and left out, and the
    /// cache keeps what it knew of their keys. The cache takes the rest as authoritative (see
    /// ``run()``).
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `unavailable` or `refused`.
    public func snapshot() async throws -> [SyncRecord] {
        let token = cache.token()
        let read = try await perform("snapshot", key: "", writes: false) { [self] in
            try await transaction(on: nil) { connection in
                try await self.selectAll(on: connection)
            }
        }
        cache.replaceAll(with: read.records, since: token, keeping: read.damaged)
        return read.records.map(\.record)
    }

    /// The keys of the store's namespace that hold a value (tombstones left out), sorted, as the
    /// table has them now.
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `unavailable` or `refused`.
    public func keys() async throws -> [String] {
        try await perform("key listing", key: "", writes: false) { [self] in
            try await transaction(on: nil) { connection in
                try await self.selectKeys(on: connection)
            }
        }
    }

    /// Removes `key` for good: writes its tombstone (a new version, delivered to every instance
    /// like any write), which reconciliation deletes from the table once it is older than
    /// ``Configuration/tombstoneRetention`` (default 7 days). Written again after that, the key
    /// starts at version 1; every instance takes it (versions going backwards are handled).
    ///
    /// - Throws: The errors of ``write(_:forKey:)``.
    public func delete(forKey key: String) async throws -> SyncRecord {
        try await write(nil, forKey: key)
    }

    /// A new feed of what this instance learns of commits — its own writes once committed,
    /// other instances' writes when their notification arrives (only records newer than the
    /// cache's) — and of replacements: after a snapshot or a reconciliation that found the table
    /// different from the cache (rows deleted, versions gone backwards, a missed change), a
    /// ``AppStateKit/SyncChange/replaced(_:)`` holds every record of the namespace, tombstones
    /// included, to be taken whatever the versions. The feed ends when the consuming task is
    /// cancelled or ``run()`` returns.
    ///
    /// At most 1,024 changes wait for a slow consumer; past that they collapse into one
    /// ``AppStateKit/SyncChange/replaced(_:)`` with the cache's records when the consumer takes
    /// it (see ``AppStateKit/SyncStore/changeFeed()``).
    public func changeFeed() -> AsyncStream<SyncChange> {
        cache.makeChangeFeed()
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
