#if PostgreSQL
import AppStateKit
import Foundation
import PostgresNIO

extension PostgresSyncStore {
    /// Runs one database operation within ``operationTimeout`` and turns every failure into a
    /// ``AppStateKit/SyncStoreError`` that names the key, the table and the cause.
    func perform<Result: Sendable>(
        _ operation: String,
        key: String,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        switch connection.status {
        case .stopped:
            throw SyncStoreError(.shutDown, key: key, detail: "the PostgresSyncStore on table \(table) stopped (its run() returned); the \(operation) was not sent")
        case .disconnected(let since, let reason):
            throw SyncStoreError(.unavailable, key: key, detail: "the connection to PostgreSQL (table \(table)) is down since \(since) (\(reason)); the \(operation) was not sent, the store is reconnecting")
        case .starting, .connected:
            break
        }
        let timeout = operationTimeout
        let table = table
        do {
            return try await OperationDeadline.run(timeout: timeout, timeoutError: {
                SyncStoreError(.unavailable, key: key, detail: "PostgreSQL (table \(table)) did not answer the \(operation) within \(timeout); if it was sent, its outcome is unknown")
            }, body)
        } catch let error as SyncStoreError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch where Self.sqlState(of: error) == "22P02" {
            throw SyncStoreError(.typeMismatch, key: key, detail: "PostgreSQL rejected the value as JSON for table \(table): \(Self.describe(error))")
        } catch {
            throw SyncStoreError(.unavailable, key: key, detail: "the \(operation) on table \(table) failed: \(Self.describe(error)); if the statement was sent before the connection broke, its outcome is unknown")
        }
    }

    /// The SQLSTATE of a server error, also inside a transaction error.
    static func sqlState(of error: any Error) -> String? {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
        if let error = error as? PostgresTransactionError {
            return [error.closureError, error.commitError, error.beginError].compactMap { $0 }.lazy.compactMap(sqlState).first
        }
        return nil
    }

    /// A description of a postgres-nio error without bind values (which may hold user data).
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            var parts = ["\(error.code)"]
            if let message = error.serverInfo?[.message] { parts.append(message) }
            if let state = error.serverInfo?[.sqlState] { parts.append("SQLSTATE \(state)") }
            if let underlying = error.underlying { parts.append(describe(underlying)) }
            return parts.joined(separator: ": ")
        }
        if let error = error as? PostgresTransactionError {
            return [error.beginError, error.closureError, error.commitError].compactMap { $0 }.map(describe).joined(separator: "; ")
        }
        return "\(error)"
    }
}
#endif
