#if PostgreSQL
import AppStateKitCore

/// Runs an operation with a deadline and returns at the deadline even when the operation
/// doesn't react to cancellation (a query on a connection that died without closing): the
/// operation is an ``Abandonable`` task, cancelled and left to finish on its own.
enum OperationDeadline {
    /// `body`'s result, or `timeoutError()` thrown once `timeout` has passed on `clock`, or
    /// `CancellationError` when the calling task is cancelled.
    static func run<Result: Sendable>(
        timeout: Duration,
        clock: WaitClock,
        timeoutError: @escaping @Sendable () -> any Error,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await Abandonable.run { abandon in
            let timer = Task {
                do { try await clock.sleep(for: timeout) } catch { return }
                abandon(timeoutError())
            }
            defer { timer.cancel() }
            return try await body()
        }
    }
}
#endif
