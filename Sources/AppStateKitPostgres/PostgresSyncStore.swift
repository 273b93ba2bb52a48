#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
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
    /// Where the store logs: its reports (a lost connection, damaged rows, malformed
    /// notifications, a failed save of the last-known-good copy) and, at debug level,
    /// postgres-nio's log of its queries. The one route: the store logs nowhere else. Given to
    /// the initialiser (``defaultLogger`` unless you pass one).
    public let logger: Logger
    /// The store's ``logger`` (queries and reports now share it).
    @available(*, deprecated, renamed: "logger")
    public var queryLogger: Logger { logger }

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
    /// The clock of every wait and interval: reconnect pauses, deadlines, heartbeats,
    /// reconciliations, rate-limited reports (``WaitClock/current`` when the store was created).
    let clock: WaitClock
    /// Notifications heard and not yet handled (bounded, coalesced per key).
    let notificationBuffer: NotificationBuffer
    /// Damaged rows, each reported once.
    let damage: DamageReporter
    /// Coalesced requests to save the last-known-good copy.
    let lastKnownGoodRequests = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let lastKnownGood: LastKnownGoodFile?

    /// Creates a store on `client`'s database, used as `configuration` says, that logs to
    /// `logger`.
    ///
    /// - Parameters:
    ///   - client: The client to run queries on; run it (`client.run()`) alongside the store.
    ///   - configuration: How the store uses its database.
    ///   - logger: Where the store logs (see ``logger``). The default, ``defaultLogger``,
    ///     forwards to AppStateKit's `\.logger`.
    ///
    /// - Precondition: the table, schema and namespace follow their rules (see
    ///   ``Configuration``), and the channel they make (`schema.table/namespace`) has at most
    ///   63 bytes, PostgreSQL's limit. This initialiser is for names written in the code, where
    ///   a bad one is a programmer error and stops the process with a message; for names read
    ///   at run time (an environment variable, a configuration file) use
    ///   ``init(client:validating:logger:)``, which throws instead.
    public init(client: PostgresClient, configuration: Configuration, logger: Logger = PostgresSyncStore.defaultLogger) {
        if let problem = Self.problem(with: configuration) {
            preconditionFailure("AppStateKit: \(problem)")
        }
        self.client = client
        self.configuration = configuration
        self.logger = logger
        self.qualifiedTable = (configuration.schema.map { "\"\($0)\"." } ?? "") + "\"\(configuration.table)\""
        self.tableDescription = Self.tableDescription(configuration)
        self.namespaceValue = configuration.namespace ?? ""
        self.channel = Self.channel(configuration)
        let clock = WaitClock.current
        self.clock = clock
        self.notificationBuffer = NotificationBuffer(clock: clock)
        self.damage = DamageReporter(clock: clock) { [logger] in logger.error("\($0)") }
        self.lastKnownGood = configuration.lastKnownGoodFile.map(LastKnownGoodFile.init(url:))
        self.metrics = PostgresSyncStoreMetrics(factory: configuration.metricsFactory, table: tableDescription, namespace: namespaceValue)
    }

    /// Creates a store on `client`'s database after checking `configuration`, for a
    /// configuration read at run time: a table, schema or namespace that breaks its rule (see
    /// ``Configuration``), or a channel longer than PostgreSQL's 63 bytes, throws.
    ///
    /// ```swift
    /// var configuration = PostgresSyncStore.Configuration()
    /// configuration.namespace = environment["FLAGS_NAMESPACE"]
    /// let store = try PostgresSyncStore(client: client, validating: configuration)
    /// ```
    ///
    /// - Throws: ``AppStateKit/SyncStoreError`` of kind `refused` whose message names the
    ///   setting, an escaped prefix of its value, and the rule.
    public convenience init(client: PostgresClient, validating configuration: Configuration, logger: Logger = PostgresSyncStore.defaultLogger) throws {
        if let problem = Self.problem(with: configuration) {
            throw SyncStoreError(.refused, key: "", detail: problem)
        }
        self.init(client: client, configuration: configuration, logger: logger)
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
    ///   - logger: Where the store logs (see ``logger``).
    ///
    /// - Precondition: `table` is a valid name (a programmer error otherwise: for a name read
    ///   at run time use ``init(client:validating:logger:)``).
    public convenience init(
        client: PostgresClient,
        table: String = "appstatekit_sync",
        operationTimeout: Duration = .seconds(10),
        reconnectDelay: Duration = .milliseconds(500),
        heartbeatInterval: Duration = .seconds(5),
        logger: Logger = PostgresSyncStore.defaultLogger
    ) {
        var configuration = Configuration()
        configuration.table = table
        configuration.operationTimeout = operationTimeout
        configuration.reconnectDelay = reconnectDelay
        configuration.heartbeatInterval = heartbeatInterval
        self.init(client: client, configuration: configuration, logger: logger)
    }

    /// Creates a store with the given settings that logs to `queryLogger` (queries and
    /// reports alike).
    @available(*, deprecated, message: "pass logger:, which receives the store's queries and reports")
    public convenience init(
        client: PostgresClient,
        table: String = "appstatekit_sync",
        operationTimeout: Duration = .seconds(10),
        reconnectDelay: Duration = .milliseconds(500),
        heartbeatInterval: Duration = .seconds(5),
        queryLogger: Logger
    ) {
        self.init(client: client, table: table, operationTimeout: operationTimeout, reconnectDelay: reconnectDelay, heartbeatInterval: heartbeatInterval, logger: queryLogger)
    }

    /// The logger a store logs to unless it is given one: a swift-log `Logger` labelled
    /// `AppStateKitPostgres` that forwards to AppStateKit's `\.logger` of the application
    /// current where the message is logged — `warning` and above as errors, the rest as debug
    /// messages (shown only while `Application.logging(isEnabled:)` is on). What the store logs
    /// names tables, keys and versions, never a password or a value, and at most an escaped
    /// prefix of what other instances sent.
    public static var defaultLogger: Logger {
        Logger(label: "AppStateKitPostgres") { _ in ApplicationLogHandler() }
    }

    /// The reason `configuration`'s names can't be used, or `nil` when they can.
    static func problem(with configuration: Configuration) -> String? {
        if let problem = nameProblem(with: configuration) { return problem }
        let channel = channel(configuration)
        if channel.utf8.count > 63 {
            return "PostgresSyncStore's notification channel \"\(channel)\" (schema.table/namespace) is longer than PostgreSQL's 63 bytes: shorten the table, schema or namespace"
        }
        return nil
    }

    /// The reason `configuration`'s table, schema or namespace can't be used, or `nil`.
    static func nameProblem(with configuration: Configuration) -> String? {
        if !isValidIdentifier(configuration.table) {
            return "PostgresSyncStore's table name \"\(SyncInputBounds.escapedPrefix(configuration.table))\" is not usable: use 1 to 50 characters of a-z, 0-9 and _, not starting with a digit"
        }
        if let schema = configuration.schema, !isValidIdentifier(schema) {
            return "PostgresSyncStore's schema name \"\(SyncInputBounds.escapedPrefix(schema))\" is not usable: use 1 to 50 characters of a-z, 0-9 and _, not starting with a digit"
        }
        if let namespace = configuration.namespace, !isValidNamespace(namespace) {
            return "PostgresSyncStore's namespace \"\(SyncInputBounds.escapedPrefix(namespace))\" is not usable: use 1 to 40 characters of A-Z, a-z, 0-9, _, - and ."
        }
        return nil
    }

    /// Stops with a message when `configuration`'s table, schema or namespace breaks its rule
    /// (see ``Configuration``): the static SQL helpers, whose configurations are written in the
    /// code, check this way.
    static func validateNames(_ configuration: Configuration) {
        if let problem = nameProblem(with: configuration) {
            preconditionFailure("AppStateKit: \(problem)")
        }
    }

    /// The table's name for messages: `schema.table` or `table`.
    static func tableDescription(_ configuration: Configuration) -> String {
        (configuration.schema.map { "\($0)." } ?? "") + configuration.table
    }

    /// The LISTEN/NOTIFY channel: the table's name and the namespace.
    static func channel(_ configuration: Configuration) -> String {
        tableDescription(configuration) + (configuration.namespace.map { "/\($0)" } ?? "")
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
