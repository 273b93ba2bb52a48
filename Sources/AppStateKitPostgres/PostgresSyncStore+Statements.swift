#if PostgreSQL
import AppStateKit
import Foundation
import PostgresNIO

/// The SQL the store runs. The table name is validated in `init` and interpolated unescaped;
/// every other value is a bind parameter.
extension PostgresSyncStore {
    var createTableQuery: PostgresQuery {
        """
        CREATE TABLE IF NOT EXISTS \(unescaped: table) (
            key text PRIMARY KEY,
            value json,
            version bigint NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now()
        )
        """
    }

    /// Upsert with `version + 1` and the notification, one statement (one transaction).
    func upsertQuery(key: String, value: String?) -> PostgresQuery {
        """
        WITH written AS (
            INSERT INTO \(unescaped: table) AS t (key, value, version, updated_at)
            VALUES (\(key), \(value)::json, 1, now())
            ON CONFLICT (key) DO UPDATE
                SET value = EXCLUDED.value, version = COALESCE(t.version, 0) + 1, updated_at = now()
            RETURNING key, version
        )
        SELECT version, pg_notify(\(table), version::text || ' ' || key)::text FROM written
        """
    }

    /// Compare-and-set for a key that must not exist yet (expected version 0).
    func insertIfAbsentQuery(key: String, value: String?) -> PostgresQuery {
        """
        WITH written AS (
            INSERT INTO \(unescaped: table) (key, value, version, updated_at)
            VALUES (\(key), \(value)::json, 1, now())
            ON CONFLICT (key) DO NOTHING
            RETURNING key, version
        )
        SELECT version, pg_notify(\(table), version::text || ' ' || key)::text FROM written
        """
    }

    /// Compare-and-set on the row's current version.
    func updateIfVersionQuery(key: String, value: String?, expectedVersion: Int64) -> PostgresQuery {
        """
        WITH written AS (
            UPDATE \(unescaped: table)
                SET value = \(value)::json, version = version + 1, updated_at = now()
                WHERE key = \(key) AND version = \(expectedVersion)
            RETURNING key, version
        )
        SELECT version, pg_notify(\(table), version::text || ' ' || key)::text FROM written
        """
    }

    /// Runs a write statement in an explicit transaction and returns the committed version
    /// (`nil`: no row written), once `COMMIT` has succeeded: with an implicit transaction the
    /// row could arrive before a commit that then fails (the connection dropped in between).
    func committedVersion(of query: PostgresQuery) async throws -> Int64? {
        let logger = queryLogger
        return try await client.withTransaction(logger: logger) { connection -> Int64? in
            try await writtenVersion(of: query, on: connection)
        }
    }

    /// The version a write statement returned (`nil`: no row written), run on `connection`
    /// inside a transaction the caller opened.
    func writtenVersion(of query: PostgresQuery, on connection: PostgresConnection) async throws -> Int64? {
        let rows = try await connection.query(query, logger: queryLogger)
        var version: Int64?
        for try await (written, _) in rows.decode((Int64, String?).self) where version == nil {
            version = written
        }
        return version
    }

    /// Reads one key's row, on `connection` or on a connection of the pool; `lockingRow` adds
    /// `FOR UPDATE`, which holds other writers of the row off until the caller's transaction ends.
    ///
    /// - Throws: `corruptRecord` when the row has no version.
    func selectRecord(key: String, on connection: PostgresConnection?, lockingRow: Bool = false) async throws -> SyncRecord? {
        let query: PostgresQuery = lockingRow
            ? "SELECT key, value::text, version FROM \(unescaped: table) WHERE key = \(key) FOR UPDATE"
            : "SELECT key, value::text, version FROM \(unescaped: table) WHERE key = \(key)"
        let rows = try await run(query, on: connection)
        var found: SyncRecord?
        for try await (rowKey, text, version) in rows.decode((String, String?, Int64?).self) {
            guard let version, version > 0 else {
                throw SyncStoreError(.corruptRecord, key: rowKey, detail: corruptVersionDetail(version))
            }
            found = SyncRecord(key: rowKey, value: text.map { Data($0.utf8) }, version: version)
        }
        return found
    }

    /// Reads every row; rows without a usable version are reported and left out.
    func selectAll(on connection: PostgresConnection?) async throws -> [SyncRecord] {
        let query: PostgresQuery = "SELECT key, value::text, version FROM \(unescaped: table)"
        let rows = try await run(query, on: connection)
        var records: [SyncRecord] = []
        for try await (key, text, version) in rows.decode((String, String?, Int64?).self) {
            guard let version, version > 0 else {
                let error = SyncStoreError(.corruptRecord, key: key, detail: corruptVersionDetail(version))
                Application.logger.error("AppStateKit: PostgresSyncStore skipped a row in the snapshot: \(error)")
                continue
            }
            records.append(SyncRecord(key: key, value: text.map { Data($0.utf8) }, version: version))
        }
        return records
    }

    private func run(_ query: PostgresQuery, on connection: PostgresConnection?) async throws -> PostgresRowSequence {
        if let connection {
            return try await connection.query(query, logger: queryLogger)
        }
        return try await client.query(query, logger: queryLogger)
    }

    private func corruptVersionDetail(_ version: Int64?) -> String {
        "the row in table \(table) has version \(version.map(String.init) ?? "NULL"); versions start at 1 (the row is ignored until a write(_:forKey:) replaces it)"
    }
}
#endif
