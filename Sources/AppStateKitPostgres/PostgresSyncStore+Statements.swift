#if PostgreSQL
import AppStateKit
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
    public static func migrationSQL(configuration: Configuration) -> String {
        """
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
    public static func grantSQL(configuration: Configuration, role: String) -> String {
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

    /// Upsert with `version + 1` and the notification, one statement.
    func upsertQuery(key: String, value: String?) -> PostgresQuery {
        """
        WITH written AS (
            INSERT INTO \(unescaped: qualifiedTable) AS t (namespace, key, value, version, updated_at)
            VALUES (\(namespaceValue), \(key), \(value)::json, 1, now())
            ON CONFLICT (namespace, key) DO UPDATE
                SET value = EXCLUDED.value, version = COALESCE(t.version, 0) + 1, updated_at = now()
            RETURNING key, version, updated_at
        )
        SELECT version, \(unescaped: Self.stampSQL), pg_notify(\(channel), \(unescaped: Self.payloadSQL))::text FROM written
        """
    }

    /// Compare-and-set for a key that must not exist yet (expected version 0).
    func insertIfAbsentQuery(key: String, value: String?) -> PostgresQuery {
        """
        WITH written AS (
            INSERT INTO \(unescaped: qualifiedTable) (namespace, key, value, version, updated_at)
            VALUES (\(namespaceValue), \(key), \(value)::json, 1, now())
            ON CONFLICT (namespace, key) DO NOTHING
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
                SET value = \(value)::json, version = version + 1, updated_at = now()
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
        let logger = queryLogger
        let milliseconds = String(max(1, operationTimeout.components.seconds * 1000 + operationTimeout.components.attoseconds / 1_000_000_000_000_000))
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
        let rows = try await connection.query(query, logger: queryLogger)
        var written: (Int64, Int64)?
        for try await (version, stamp, _) in rows.decode((Int64, Int64, String?).self) where written == nil {
            written = (version, stamp)
        }
        return written
    }

    /// Reads one key's row on `connection`; `lockingRow` adds `FOR UPDATE`, which holds other
    /// writers of the row off until the caller's transaction ends.
    ///
    /// - Throws: `corruptRecord` when the row has no version.
    func selectRecord(key: String, on connection: PostgresConnection, lockingRow: Bool = false) async throws -> StampedRecord? {
        let query: PostgresQuery = lockingRow
            ? "SELECT key, value::text, version, \(unescaped: Self.stampSQL) FROM \(unescaped: qualifiedTable) WHERE namespace = \(namespaceValue) AND key = \(key) FOR UPDATE"
            : "SELECT key, value::text, version, \(unescaped: Self.stampSQL) FROM \(unescaped: qualifiedTable) WHERE namespace = \(namespaceValue) AND key = \(key)"
        let rows = try await connection.query(query, logger: queryLogger)
        var found: StampedRecord?
        for try await (rowKey, text, version, stamp) in rows.decode((String, String?, Int64?, Int64).self) {
            guard let version, version > 0 else {
                throw SyncStoreError(.corruptRecord, key: rowKey, detail: corruptVersionDetail(version))
            }
            found = StampedRecord(SyncRecord(key: rowKey, value: text.map { Data($0.utf8) }, version: version), stamp: stamp)
        }
        return found
    }

    /// Reads every row of the namespace; rows without a usable version are reported and left out.
    func selectAll(on connection: PostgresConnection) async throws -> [StampedRecord] {
        let query: PostgresQuery = "SELECT key, value::text, version, \(unescaped: Self.stampSQL) FROM \(unescaped: qualifiedTable) WHERE namespace = \(namespaceValue)"
        let rows = try await connection.query(query, logger: queryLogger)
        var records: [StampedRecord] = []
        for try await (key, text, version, stamp) in rows.decode((String, String?, Int64?, Int64).self) {
            guard let version, version > 0 else {
                let error = SyncStoreError(.corruptRecord, key: key, detail: corruptVersionDetail(version))
                Application.logger.error("AppStateKit: PostgresSyncStore skipped a row in the snapshot: \(error)")
                continue
            }
            records.append(StampedRecord(SyncRecord(key: key, value: text.map { Data($0.utf8) }, version: version), stamp: stamp))
        }
        return records
    }

    /// The namespace's keys that hold a value, sorted.
    func selectKeys(on connection: PostgresConnection) async throws -> [String] {
        let query: PostgresQuery = "SELECT key FROM \(unescaped: qualifiedTable) WHERE namespace = \(namespaceValue) AND value IS NOT NULL ORDER BY key COLLATE \"C\""
        let rows = try await connection.query(query, logger: queryLogger)
        var keys: [String] = []
        for try await key in rows.decode(String.self) { keys.append(key) }
        return keys
    }

    private func corruptVersionDetail(_ version: Int64?) -> String {
        "the row in table \(tableDescription) has version \(version.map(String.init) ?? "NULL"); versions start at 1 (the row is ignored until a write(_:forKey:) replaces it)"
    }
}
#endif
