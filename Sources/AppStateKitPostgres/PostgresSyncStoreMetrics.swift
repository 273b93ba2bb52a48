#if PostgreSQL
import AppStateKitCore
import CoreMetrics
import Foundation

/// The store's swift-metrics instruments, each with the dimensions `table` and `namespace`.
/// The names are listed in Documentation/SyncState-PostgreSQL.md ("Metrics").
struct PostgresSyncStoreMetrics: Sendable {
    /// The results a write is counted under.
    enum WriteResult: String {
        case committed, conflict, failed
    }

    let factory: any MetricsFactory
    let dimensions: [(String, String)]
    let retries: Counter
    let reconnects: Counter
    let reconciliationRepairs: Counter
    let reconciliationDuration: CoreMetrics.Timer
    let notificationLag: CoreMetrics.Timer
    let pendingWrites: Gauge
    let snapshotRecords: Gauge
    let damagedRecords: Counter
    let malformedNotifications: Counter
    let droppedNotifications: Counter
    private let pending = PendingCount()

    init(factory: (any MetricsFactory)?, table: String, namespace: String) {
        let factory = factory ?? MetricsSystem.factory
        let dimensions = [("table", table), ("namespace", namespace)]
        self.factory = factory
        self.dimensions = dimensions
        retries = Counter(label: "appstatekit_sync_retries_total", dimensions: dimensions, factory: factory)
        reconnects = Counter(label: "appstatekit_sync_reconnects_total", dimensions: dimensions, factory: factory)
        reconciliationRepairs = Counter(label: "appstatekit_sync_reconciliation_repairs_total", dimensions: dimensions, factory: factory)
        reconciliationDuration = CoreMetrics.Timer(label: "appstatekit_sync_reconciliation_duration", dimensions: dimensions, factory: factory)
        notificationLag = CoreMetrics.Timer(label: "appstatekit_sync_notification_lag", dimensions: dimensions, factory: factory)
        pendingWrites = Gauge(label: "appstatekit_sync_pending_writes", dimensions: dimensions, factory: factory)
        snapshotRecords = Gauge(label: "appstatekit_sync_snapshot_records", dimensions: dimensions, factory: factory)
        damagedRecords = Counter(label: "appstatekit_sync_damaged_records_total", dimensions: dimensions, factory: factory)
        malformedNotifications = Counter(label: "appstatekit_sync_malformed_notifications_total", dimensions: dimensions, factory: factory)
        droppedNotifications = Counter(label: "appstatekit_sync_dropped_notifications_total", dimensions: dimensions, factory: factory)
    }

    /// Counts one write (`write`, compare-and-set or exclusive update) under `result`.
    func countWrite(_ result: WriteResult) {
        Counter(label: "appstatekit_sync_writes_total", dimensions: dimensions + [("result", result.rawValue)], factory: factory).increment()
    }

    /// Runs `body` with the pending-writes gauge raised by one.
    func trackingPending<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        pendingWrites.record(pending.add(1))
        defer { pendingWrites.record(pending.add(-1)) }
        return try await body()
    }
}

/// The number of writes in flight.
private final class PendingCount: Sendable {
    private let count = LockedBox(0)

    func add(_ delta: Int) -> Int {
        count.withLock { count in
            count += delta
            return count
        }
    }
}
#endif
