#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation
import PostgresNIO

/// The SQL the store runs. The table and schema names are validated in `init` and interpolated
/// quoted; every other value is a bind parameter.
extension PostgresSyncStore {
    /// The `CREATE TABLE` statement for `configuration`'s table (schema-qualified when a schema
    /// is set), for a migration tool or a DBA to run as the table's owner:
    ///
    /// ```swift
    /// print(PostgresSyncStore.migrationSQL(configuration: configuration))
    /// ```
    ///
    /// The store needs this one table and nothing else (no sequence, function or trigger). With
    /// ``Configuration/createsTable`` set, ``run()`` runs the same statement when `to_regclass`
    /// finds no table.
    ///
    /// - Precondition: the table and schema follow their rules, as in ``init(client:configuration:)``.
    public static func migrationSQL(configuration: Configuration) -> String {
        validateNames(configuration)
        return """
        CREATE TABLE IF NOT EXISTS \(qualifiedName(configuration)) (
            namespace text NOT NULL DEFAULT '',
            key text NOT NULL,
            value json,
            version bigint NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (namespace, key)
        );
        """
    }

    /// The `GRANT`s the application's role `role` needs on `configuration`'s table: `USAGE`
    /// on the schema (when one is set) and `SELECT, INSERT, UPDATE, DELETE` on the table. With
    /// these and ``Configuration/createsTable`` off, the role runs every operation of the store.
    ///
    /// - Precondition: the table and schema follow their rules, as in ``init(client:configuration:)``
    ///   (`role` is quoted, so any role name works).
    public static func grantSQL(configuration: Configuration, role: String) -> String {
        validateNames(configuration)
        let quotedRole = "\"" + role.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        var statements: [String] = []
        if let schema = configuration.schema {
            statements.append("GRANT USAGE ON SCHEMA \"\(schema)\" TO \(quotedRole);")
        }
        statements.append("GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE \(qualifiedName(configuration)) TO \(quotedRole);")
        return statements.joined(separator: "\n")
    }

    static func qualifiedName(_ configuration: Configuration) -> String {
        (configuration.schema.map { "\"\($0)\"." } ?? "") + "\"\(configuration.table)\""
    }

    /// The table's OID as text, or NULL when there is none (no DDL, no privilege needed).
    var tableExistsQuery: PostgresQuery {
        "SELECT to_regclass(\(qualifiedTable))::text"
    }

    var createTableQuery: PostgresQuery {
        PostgresQuery(unsafeSQL: Self.migrationSQL(configuration: configuration))
    }

    /// The row's write stamp: `updated_at` in microseconds since 1970. With the version it
    /// identifies one write, also when a version is reused after rows were deleted.
    static let stampSQL = "(extract(epoch from updated_at) * 1000000)::bigint"

    /// The notification's payload: `<version> <stamp> <key>`.
    private static let payloadSQL = "version::text || ' ' || \(stampSQL)::text || ' ' || key"

    /// The version a write gives a row that held `version`: one more, or 1 when the row's
    /// version is outside the usable range (a peer wrote it), so a write repairs such a row
    /// instead of overflowing `bigint`.
    private static func nextVersionSQL(_ version: String) -> String {
        "CASE WHEN \(version) BETWEEN 1 AND \(SyncInputBounds.maxVersion - 1) THEN \(version) + 1 ELSE 1 END"
    }

    /// Whether the row `alias` is damaged: a version outside the usable range, an `updated_at`
    /// that is NULL, infinite or more than 100 years from now, or a value over the size limit.
    /// Such a row reads as absent, so an insert-if-absent may replace it.
    private static func damagedSQL(_ alias: String) -> String {
        """
        NOT COALESCE(\(alias).version BETWEEN 1 AND \(SyncInputBounds.maxVersion) \
        AND \(alias).updated_at BETWEEN now() - interval '100 years' AND now() + interval '100 years' \
        AND COALESCE(octet_length(\(alias).value::text), 0) <= \(SyncLimits.maxValueBytes), false)
        """
    }

    /// Upsert with the next version and the notification, one statement; repairs a damaged row.
    func upsertQuery(key: String, value: String?) -> PostgresQuery {
        """
        WITH written AS (
            INSERT INTO \(unescaped: qualifiedTable) AS t (namespace, key, value, version, updated_at)
            VALUES (\(namespaceValue), \(key), \(value)::json, 1, now())
            ON CONFLICT (namespace, key) DO UPDATE
                SET value = EXCLUDED.value, version = \(unescaped: Self.nextVersionSQL("t.version")), updated_at = now()
            RETURNING key, version, updated_at
        )
        SELECT version, \(unescaped: Self.stampSQL), pg_notify(\(channel), \(unescaped: Self.payloadSQL))::text FROM written
        """
    }

    /// Compare-and-set for a key that must not exist yet (expected version 0); a damaged row
    /// counts as absent (readers skip it) and is replaced.
    func insertIfAbsentQuery(key: String, value: String?) -> PostgresQuery {
        """
        WITH written AS (
            INSERT INTO \(unescaped: qualifiedTable) AS t (namespace, key, value, version, updated_at)
            VALUES (\(namespaceValue), \(key), \(value)::json, 1, now())
            ON CONFLICT (namespace, key) DO UPDATE
                SET value = EXCLUDED.value, version = \(unescaped: Self.nextVersionSQL("t.version")), updated_at = now()
                WHERE \(unescaped: Self.damagedSQL("t"))
            RETURNING key, version, updated_at
        )
        SELECT version, \(unescaped: Self.stampSQL), pg_notify(\(channel), \(unescaped: Self.payloadSQL))::text FROM written
        """
    }

    /// Compare-and-set on the row's current version.
    func updateIfVersionQuery(key: String, value: String?, expectedVersion: Int64) -> PostgresQuery {
        """
        WITH written AS (
            UPDATE \(unescaped: qualifiedTable)
                SET value = \(value)::json, version = \(unescaped: Self.nextVersionSQL("version")), updated_at = now()
                WHERE namespace = \(namespaceValue) AND key = \(key) AND version = \(expectedVersion)
            RETURNING key, version, updated_at
        )
        SELECT version, \(unescaped: Self.stampSQL), pg_notify(\(channel), \(unescaped: Self.payloadSQL))::text FROM written
        """
    }

    /// Deletes the namespace's tombstones older than the retention.
    var collectTombstonesQuery: PostgresQuery {
        let seconds = Double(configuration.tombstoneRetention.components.seconds)
            + Double(configuration.tombstoneRetention.components.attoseconds) / 1e18
        return """
            DELETE FROM \(unescaped: qualifiedTable)
            WHERE namespace = \(namespaceValue) AND value IS NULL
                AND updated_at < now() - make_interval(secs => \(seconds))
            """
    }

    /// Runs `body` in a transaction pinned to `READ COMMITTED`, with `statement_timeout` and
    /// `lock_timeout` set to the operation timeout for its statements, on `connection` or on a
    /// connection leased from the pool; commits when `body` returns, rolls back when it throws.
    /// The result is returned only once `COMMIT` has succeeded.
    func transaction<Result: Sendable>(
        on connection: PostgresConnection?,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        if let connection {
            return try await transaction(connection, body)
        }
        return try await client.withConnection { connection in
            try await self.transaction(connection, body)
        }
    }

    private func transaction<Result: Sendable>(
        _ connection: PostgresConnection,
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let logger = self.logger
        // Saturating: PostgreSQL takes at most Int32.max milliseconds (about 24 days).
        let (whole, overflow) = operationTimeout.components.seconds.multipliedReportingOverflow(by: 1000)
        let sum = whole.addingReportingOverflow(operationTimeout.components.attoseconds / 1_000_000_000_000_000)
        let total = overflow || sum.overflow ? Int64.max : sum.partialValue
        let milliseconds = String(min(max(1, total), Int64(Int32.max)))
        try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
        let result: Result
        do {
            try await connection.query(
                "SELECT set_config('statement_timeout', \(milliseconds), true), set_config('lock_timeout', \(milliseconds), true)",
                logger: logger
            )
            result = try await body(connection)
        } catch {
            do {
                try await connection.query("ROLLBACK", logger: logger)
            } catch {
                // The original error is the one reported; a ROLLBACK that fails means the
                // connection broke, and PostgreSQL rolls the transaction back itself.
            }
            throw error
        }
        try await connection.query("COMMIT", logger: logger)
        return result
    }

    /// The version and stamp a write statement returned (`nil`: no row written), run on
    /// `connection` inside a transaction the caller opened.
    func writtenVersion(of query: PostgresQuery, on connection: PostgresConnection) async throws -> (version: Int64, stamp: Int64)? {
        let rows = try await connection.query(query, logger: logger)
        var written: (Int64, Int64)?
        for try await (version, stamp, _) in rows.decode((Int64, Int64, String?).self) where written == nil {
            written = (version, stamp)
        }
        return written
    }

    /// The columns a read selects, for ``SyncRow``: the value only when PostgreSQL measured it
    /// within the size limit (a larger one is never transferred), its size, the version, and
    /// `updated_at` as text (`Infinity` for an infinite time: no row can fail the query).
    private static let rowColumnsSQL = """
        key, CASE WHEN octet_length(value::text) <= \(SyncLimits.maxValueBytes) THEN value::text END, \
        octet_length(value::text)::bigint, version, trunc(extract(epoch from updated_at) * 1000000)::text
        """

    /// The outcome of reading one key's row.
    enum RowRead: Sendable {
        case absent
        case record(StampedRecord)
        case damaged(SyncRow.Damage)
    }

    /// Reads one key's row on `connection`; `lockingRow` adds `FOR UPDATE`, which holds other
    /// writers of the row off until the caller's transaction ends. A damaged row is reported
    /// (once) and returned as such.
    func readRow(key: String, on connection: PostgresConnection, lockingRow: Bool = false) async throws -> RowRead {
        let query: PostgresQuery = lockingRow
            ? "SELECT \(unescaped: Self.rowColumnsSQL) FROM \(unescaped: qualifiedTable) WHERE namespace = \(namespaceValue) AND key = \(key) FOR UPDATE"
            : "SELECT \(unescaped: Self.rowColumnsSQL) FROM \(unescaped: qualifiedTable) WHERE namespace = \(namespaceValue) AND key = \(key)"
        let rows = try await connection.query(query, logger: logger)
        var found = RowRead.absent
        let now = SyncInputBounds.nowMicroseconds()
        for try await (rowKey, text, size, version, stamp) in rows.decode((String, String?, Int64?, Int64?, String?).self) {
            switch SyncRow(key: rowKey, value: text, valueBytes: size, version: version, stamp: stamp).decode(now: now) {
            case .success(let record):
                damage.forget(key: rowKey)
                found = .record(record)
            case .failure(let reason):
                reportDamage(key: rowKey, reason)
                found = .damaged(reason)
            }
        }
        return found
    }

    /// Reads one key's row on `connection`: `nil` when it has none or it is damaged (reported).
    func selectRecord(key: String, on connection: PostgresConnection, lockingRow: Bool = false) async throws -> StampedRecord? {
        if case .record(let record) = try await readRow(key: key, on: connection, lockingRow: lockingRow) { return record }
        return nil
    }

    /// Reads every row of the namespace, row by row: damaged rows (see ``SyncRow``) are
    /// reported once and returned apart, so the cache keeps what it knew of their keys.
    func selectAll(on connection: PostgresConnection) async throws -> (records: [StampedRecord], damaged: Set<String>) {
        let query: PostgresQuery = "SELECT \(unescaped: Self.rowColumnsSQL) FROM \(unescaped: qualifiedTable) WHERE namespace = \(namespaceValue)"
        let rows = try await connection.query(query, logger: logger)
        var records: [StampedRecord] = []
        var damaged: Set<String> = []
        let now = SyncInputBounds.nowMicroseconds()
        for try await (key, text, size, version, stamp) in rows.decode((String, String?, Int64?, Int64?, String?).self) {
            switch SyncRow(key: key, value: text, valueBytes: size, version: version, stamp: stamp).decode(now: now) {
            case .success(let record):
                records.append(record)
            case .failure(let reason):
                reportDamage(key: key, reason)
                damaged.insert(key)
            }
        }
        damage.keepOnly(damaged)
        return (records, damaged)
    }

    /// Reports (once per key and reason) that `key`'s row is damaged, with what to do.
    func reportDamage(key: String, _ reason: SyncRow.Damage) {
        metrics.damagedRecords.increment()
        damage.report(key: key, reason: reason.description) {
            "AppStateKit: PostgresSyncStore skipped the row of key \"\(SyncInputBounds.escapedPrefix(key))\" in table \(tableDescription), namespace \"\(namespaceValue)\": \(reason); every other key keeps working and this instance keeps the value it last knew for it. Any write of the key (write(_:forKey:)) replaces the row, or fix or delete it as the table's owner"
        }
    }

    /// The namespace's keys that hold a value, sorted.
    func selectKeys(on connection: PostgresConnection) async throws -> [String] {
        let query: PostgresQuery = "SELECT key FROM \(unescaped: qualifiedTable) WHERE namespace = \(namespaceValue) AND value IS NOT NULL ORDER BY key COLLATE \"C\""
        let rows = try await connection.query(query, logger: logger)
        var keys: [String] = []
        for try await key in rows.decode(String.self) { keys.append(key) }
        return keys
    }
}
#endif
