#if PostgreSQL
import AppStateKitCore

/// Runs work in a task of its own that the caller can stop waiting for.
///
/// The call returns at the first of: the work's own result, a failure reported through the
/// `abandon` function the work receives (by a watchdog it started, say), or the caller's
/// cancellation. The work's task is then cancelled but not awaited. That is the point: an await
/// inside postgres-nio on a connection that died without closing (seen after a server restart:
/// a notification sequence that never ends and ignores cancellation) must not hold the store's
/// `run()` or an operation past its deadline. The abandoned task ends whenever its await does.
enum Abandonable {
    /// `body`'s result, or the first error passed to `abandon`, or `CancellationError` when the
    /// calling task is cancelled — whichever comes first.
    static func run<Result: Sendable>(
        _ body: @escaping @Sendable (_ abandon: @escaping @Sendable (any Error) -> Void) async throws -> Result
    ) async throws -> Result {
        let race = Race<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                race.start(continuation, work: Task {
                    do {
                        race.finish(with: .success(try await body { race.finish(with: .failure($0)) }))
                    } catch {
                        race.finish(with: .failure(error))
                    }
                })
            }
        } onCancel: {
            race.finish(with: .failure(CancellationError()))
        }
    }

    /// The first outcome wins and resumes the caller; later ones are dropped. The work's task is
    /// cancelled once there is an outcome.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var work: Task<Void, Never>?
            var outcome: Swift.Result<Value, any Error>?
        }

        private let state = LockedBox(State())

        /// Called once, with the task running the work; resumes at once if an outcome (the
        /// caller's cancellation, a fast abandon) came first.
        func start(_ continuation: CheckedContinuation<Value, any Error>, work: Task<Void, Never>) {
            let early = state.withLock { state -> Swift.Result<Value, any Error>? in
                state.work = work
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let early {
                work.cancel()
                continuation.resume(with: early)
            }
        }

        func finish(with outcome: Swift.Result<Value, any Error>) {
            let (continuation, work) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
                guard state.outcome == nil else { return (nil, nil) }
                state.outcome = outcome
                defer { state.continuation = nil }
                return (state.continuation, state.work)
            }
            work?.cancel()
            continuation?.resume(with: outcome)
        }
    }
}
#endif
