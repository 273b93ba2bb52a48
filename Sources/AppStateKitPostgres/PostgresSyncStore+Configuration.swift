#if PostgreSQL
import CoreMetrics
import Foundation
import Logging

extension PostgresSyncStore {
    /// How a ``PostgresSyncStore`` uses its database: where its rows live, whether it may create
    /// its table, how it hears of other instances' changes, and its deadlines.
    ///
    /// Every property has a default, so a configuration names only what differs:
    ///
    /// ```swift
    /// var configuration = PostgresSyncStore.Configuration()
    /// configuration.schema = "flags"            // "flags"."appstatekit_sync"
    /// configuration.namespace = "checkout"      // this app's keys only
    /// configuration.createsTable = false        // the migration role created it
    /// let store = PostgresSyncStore(client: client, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The table that holds the records: 1 to 50 characters of `a`–`z`, `0`–`9` and `_`,
        /// not starting with a digit. Always quoted in SQL, so reserved words (`order`, `user`)
        /// work. Default: `appstatekit_sync`.
        public var table: String = "appstatekit_sync"
        /// The schema of ``table`` (same rule as the table's name); `nil` (the default) leaves
        /// the name unqualified, so PostgreSQL finds it through the role's `search_path`.
        public var schema: String?
        /// The namespace of this app's keys in a table several apps share: 1 to 40 characters
        /// of `A`–`Z`, `a`–`z`, `0`–`9`, `_`, `-` and `.`. The store reads, caches, hears and
        /// writes only its namespace's rows. `nil` (the default) is the empty namespace, which
        /// is itself one namespace: two apps that use a table without namespaces share keys.
        public var namespace: String?
        /// Whether ``PostgresSyncStore/run()`` creates the table when `to_regclass` finds none
        /// (the default). With `false` the store never issues DDL: the table must exist (see
        /// ``PostgresSyncStore/migrationSQL(configuration:)``), and the role needs only
        /// `USAGE` on the schema and `SELECT, INSERT, UPDATE, DELETE` on the table.
        public var createsTable: Bool = true
        /// Whether ``PostgresSyncStore/run()`` holds one connection that `LISTEN`s for other
        /// instances' commits (the default: changes arrive in milliseconds). With `false` the
        /// store holds no connection and learns of changes only by reconciliation, every
        /// ``reconcileInterval``: use it behind a pooler in transaction mode, where `LISTEN`
        /// does not work.
        public var listensForNotifications: Bool = true
        /// How often ``PostgresSyncStore/run()`` compares the cache with the table and repairs
        /// every difference (a missed notification, rows deleted or restored, versions gone
        /// backwards). Default: 30 seconds. While listening, a lost notification costs at most
        /// this long; without listening, it is how stale a value may be.
        public var reconcileInterval: Duration = .seconds(30)
        /// Where the store keeps a copy of its last snapshot (written atomically, owner-only
        /// permissions, in the background after changes), to serve when PostgreSQL cannot be
        /// reached at boot. `nil` (the default): no copy, the store serves initial values until
        /// the database answers.
        public var lastKnownGoodFile: URL?
        /// How long one operation may take: PostgreSQL cancels a statement after this long
        /// (`statement_timeout`, `lock_timeout`, set in each transaction) and the store stops
        /// waiting one second later. Default: 10 seconds.
        public var operationTimeout: Duration = .seconds(10)
        /// The pause between reconnection attempts. Default: 500 ms.
        public var reconnectDelay: Duration = .milliseconds(500)
        /// How often the listening connection is checked with `SELECT 1` while nothing else
        /// runs on it, so a silently dead connection is noticed within about this time.
        /// Default: 5 seconds.
        public var heartbeatInterval: Duration = .seconds(5)
        /// How long a removed key's tombstone stays in the table before reconciliation deletes
        /// it. Default: 7 days. A key removed longer ago than this starts again at version 1
        /// when it is written next.
        public var tombstoneRetention: Duration = .seconds(7 * 24 * 3600)
        /// Not used: the store logs its queries and its reports to the `logger` its initialiser
        /// receives (``PostgresSyncStore/logger``), its one logger.
        @available(*, deprecated, message: "pass logger: to PostgresSyncStore's initialiser; the store logs queries and reports there")
        public var queryLogger: Logger = Logger(label: "AppStateKitPostgres")
        /// Where the store's metrics go (see Documentation/SyncState-PostgreSQL.md, "Metrics");
        /// `nil` (the default): the factory `MetricsSystem.bootstrap(_:)` installed.
        public var metricsFactory: (any MetricsFactory)?

        /// The defaults listed on each property.
        public init() {}
    }
}
#endif
