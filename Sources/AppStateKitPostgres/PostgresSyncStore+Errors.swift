#if PostgreSQL
import _ConnectionPoolModule
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation
import PostgresNIO

extension PostgresSyncStore {
    /// How often an operation runs again after a serialization failure or a deadlock.
    static let transientRetryAttempts = 5
    /// How much longer than ``Configuration/operationTimeout`` the store waits for an answer, so
    /// PostgreSQL's own `statement_timeout`/`lock_timeout` (a definite failure) comes first.
    static let clientDeadlineGrace: Duration = .seconds(1)

    /// Runs one database operation and turns every failure into a ``AppStateKit/SyncStoreError``
    /// that names the key, the table and the cause: waits until ``run()`` has prepared the table
    /// (when the store may create it), retries serialization failures and deadlocks, and gives
    /// up ``clientDeadlineGrace`` after the operation timeout.
    func perform<Result: Sendable>(
        _ operation: String,
        key: String,
        writes: Bool = true,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        switch connection.status {
        case .stopped:
            throw SyncStoreError(.shutDown, key: key, detail: "the PostgresSyncStore on table \(tableDescription) stopped (its run() returned); the \(operation) was not sent")
        case .disconnected(let since, let reason), .servingLastKnownGood(_, let since, let reason):
            throw SyncStoreError(.unavailable, key: key, detail: "the connection to PostgreSQL (table \(tableDescription)) is down since \(since) (\(reason)); the \(operation) was not sent, the store is reconnecting")
        case .starting, .connected:
            break
        }
        let deadline = operationTimeout + Self.clientDeadlineGrace
        let table = tableDescription
        let sent = LockedBox(false)
        let waitsForTable = configuration.createsTable
        let metrics = metrics
        let clock = clock
        do {
            return try await OperationDeadline.run(timeout: deadline, clock: clock, timeoutError: {
                if sent.withLock({ $0 }) {
                    return SyncStoreError(.unavailable, key: key, detail: "PostgreSQL (table \(table)) did not answer the \(operation) within \(deadline); \(writes ? "its outcome is unknown" : "nothing was changed")")
                }
                return SyncStoreError(.unavailable, key: key, detail: "the store's run() had not found or created table \(table) within \(deadline) (is run() running, in a ServiceGroup or a task?); the \(operation) was not sent")
            }) { [tablePrepared] in
                if waitsForTable { try await tablePrepared.wait() }
                sent.withLock { $0 = true }
                var attempt = 1
                while true {
                    do {
                        return try await body()
                    } catch where attempt < Self.transientRetryAttempts && ["40001", "40P01"].contains(Self.sqlState(of: error)) {
                        metrics.retries.increment()
                        attempt += 1
                        try await clock.sleep(for: .milliseconds(Int64.random(in: 5...20) * Int64(attempt)))
                    }
                }
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw classify(error, operation: operation, key: key, writes: writes)
        }
    }

    /// ``perform(_:key:writes:_:)`` for a write: counted in the pending-writes gauge while it
    /// runs, and as a failed write when it throws.
    func performWrite<Result: Sendable>(
        _ operation: String,
        key: String,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        do {
            return try await metrics.trackingPending {
                try await perform(operation, key: key, writes: true, body)
            }
        } catch {
            metrics.countWrite(.failed)
            throw error
        }
    }

    /// The ``AppStateKit/SyncStoreError`` for `error`: definite failures (the server answered
    /// with an error, so nothing was committed) say so and what to do; only a lost connection or
    /// a missed deadline leaves a write's outcome unknown.
    func classify(_ error: any Error, operation: String, key: String, writes: Bool) -> SyncStoreError {
        if let error = error as? SyncStoreError { return error }
        let table = tableDescription
        let notDone = writes ? "nothing was written" : "nothing was read"
        if let pool = error as? ConnectionPoolError {
            switch pool {
            case .poolShutdown:
                return SyncStoreError(.unavailable, key: key, detail: "the PostgresClient has shut down (or its run() never started), so the \(operation) on table \(table) was not sent; keep the client running until the store's run() has returned (in a ServiceGroup: list the client before the store)")
            case .connectionCreationCircuitBreakerTripped:
                return SyncStoreError(.unavailable, key: key, detail: "the PostgresClient could not open a connection to PostgreSQL for a while, so the \(operation) on table \(table) was not sent")
            default:
                return SyncStoreError(.unavailable, key: key, detail: "the PostgresClient gave up waiting for a connection, so the \(operation) on table \(table) was not sent")
            }
        }
        let description = Self.describe(error)
        guard let state = Self.sqlState(of: error) else {
            let outcome = writes ? "if the statement was sent before the connection broke, its outcome is unknown" : "nothing was changed"
            return SyncStoreError(.unavailable, key: key, detail: "the \(operation) on table \(table) failed: \(description); \(outcome)")
        }
        switch state {
        case "22P02", "22032":
            return SyncStoreError(.typeMismatch, key: key, detail: "PostgreSQL rejected the value as JSON for table \(table): \(description); \(notDone)")
        case "42501":
            let grants = Self.grantSQL(configuration: configuration, role: "<the app's role>")
            return SyncStoreError(.refused, key: key, detail: "PostgreSQL refused the \(operation) on table \(table) for lack of a privilege (\(description)); \(notDone). As the table's owner, grant the role the store connects as what it needs: \(grants.replacingOccurrences(of: "\n", with: " "))")
        case "42P01", "3F000":
            return SyncStoreError(.refused, key: key, detail: "table \(table) does not exist (\(description)); \(notDone). Create it as its owner with the SQL PostgresSyncStore.migrationSQL(configuration:) prints, or let run() create it (Configuration.createsTable, the default)")
        case "42703":
            return SyncStoreError(.refused, key: key, detail: "table \(table) lacks a column the store uses (\(description)); \(notDone). It was made by hand or by an older AppStateKit: compare it with PostgresSyncStore.migrationSQL(configuration:)")
        case "57014":
            return SyncStoreError(.unavailable, key: key, detail: "PostgreSQL cancelled the \(operation) on table \(table) after the operation timeout of \(operationTimeout) (statement_timeout); \(notDone)")
        case "55P03":
            return SyncStoreError(.unavailable, key: key, detail: "the \(operation) on table \(table) waited longer than the operation timeout of \(operationTimeout) for a row lock another transaction holds (lock_timeout); \(notDone)")
        case "40001", "40P01":
            return SyncStoreError(.contention, key: key, detail: "the \(operation) on table \(table) failed \(Self.transientRetryAttempts) times with a serialization failure or deadlock (\(description)); \(notDone)")
        default:
            break
        }
        if state.hasPrefix("08") || state.hasPrefix("57") || state.hasPrefix("53") || state.hasPrefix("58") || state.hasPrefix("XX") {
            let outcome = writes ? "if the statement was sent before the failure, its outcome is unknown" : "nothing was changed"
            return SyncStoreError(.unavailable, key: key, detail: "the \(operation) on table \(table) failed: \(description); \(outcome)")
        }
        return SyncStoreError(.refused, key: key, detail: "PostgreSQL refused the \(operation) on table \(table): \(description); \(notDone)")
    }

    /// The SQLSTATE of a server error, also inside a transaction error.
    static func sqlState(of error: any Error) -> String? {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
        if let error = error as? PostgresTransactionError {
            return [error.closureError, error.commitError, error.beginError].compactMap { $0 }.lazy.compactMap(sqlState).first
        }
        return nil
    }

    /// A description of an error without bind values (which may hold user data) and without
    /// postgres-nio's internal type names.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            var parts: [String] = []
            if let message = error.serverInfo?[.message] {
                parts.append(message)
            } else {
                parts.append(describe(code: error.code))
            }
            if let state = error.serverInfo?[.sqlState] { parts.append("SQLSTATE \(state)") }
            if let underlying = error.underlying { parts.append(describe(underlying)) }
            return parts.joined(separator: ": ")
        }
        if let error = error as? PostgresTransactionError {
            return [error.beginError, error.closureError, error.commitError].compactMap { $0 }.map(describe).joined(separator: "; ")
        }
        if error is ConnectionPoolError {
            return "the PostgresClient could not lend a connection (it shut down or cannot connect)"
        }
        if let error = error as? SyncStoreError { return error.detail }
        if error is CancellationError { return "cancelled" }
        return String(describing: error)
    }

    private static func describe(code: PSQLError.Code) -> String {
        switch code {
        case .serverClosedConnection: "the server closed the connection"
        case .clientClosedConnection: "the connection was closed"
        case .connectionError: "the connection failed"
        case .poolClosed: "the PostgresClient shut down"
        case .queryCancelled: "the query was cancelled"
        case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError: "authentication failed (check the user and password)"
        case .uncleanShutdown: "the connection ended uncleanly"
        default: "PostgreSQL error \(code)"
        }
    }
}
#endif
