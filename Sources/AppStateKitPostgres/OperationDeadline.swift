#if PostgreSQL
import NIOConcurrencyHelpers

/// Runs an operation with a deadline and returns at the deadline even when the operation
/// doesn't react to cancellation (a query on a connection that died without closing): the
/// operation runs in its own task, which is cancelled and left to finish on its own.
enum OperationDeadline {
    /// `body`'s result, or `timeoutError()` thrown once `timeout` has passed, or
    /// `CancellationError` when the calling task is cancelled.
    static func run<Result: Sendable>(
        timeout: Duration,
        timeoutError: @escaping @Sendable () -> any Error,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let race = Race<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                race.start(
                    continuation,
                    work: Task {
                        do {
                            race.finish(with: .success(try await body()))
                        } catch {
                            race.finish(with: .failure(error))
                        }
                    },
                    timer: Task {
                        do { try await Task.sleep(for: timeout) } catch { return }
                        race.finish(with: .failure(timeoutError()))
                    }
                )
            }
        } onCancel: {
            race.finish(with: .failure(CancellationError()))
        }
    }

    /// The first outcome wins; the others are dropped. Both tasks are cancelled at the end.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var tasks: [Task<Void, Never>] = []
            var outcome: Swift.Result<Value, any Error>?
        }

        private let state = NIOLockedValueBox(State())

        func start(_ continuation: CheckedContinuation<Value, any Error>, work: Task<Void, Never>, timer: Task<Void, Never>) {
            let early = state.withLockedValue { state -> Swift.Result<Value, any Error>? in
                state.tasks = [work, timer]
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let early {
                work.cancel()
                timer.cancel()
                continuation.resume(with: early)
            }
        }

        func finish(with outcome: Swift.Result<Value, any Error>) {
            let (continuation, tasks) = state.withLockedValue { state -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
                guard state.outcome == nil else { return (nil, []) }
                state.outcome = outcome
                defer { state.continuation = nil }
                return (state.continuation, state.tasks)
            }
            for task in tasks { task.cancel() }
            continuation?.resume(with: outcome)
        }
    }
}
#endif
