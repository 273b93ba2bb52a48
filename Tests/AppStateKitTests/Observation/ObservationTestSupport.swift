import AppStateKit
import Foundation
import Observation
import Synchronization

/// Counts the `onChange` calls of `withObservationTracking` registrations.
final class ChangeCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .sequentiallyConsistent) }

    func fire() {
        count.add(1, ordering: .sequentiallyConsistent)
    }
}

/// Registers interest in whatever `read` reads; the returned counter counts `onChange` calls.
func trackChanges(_ read: () -> Void) -> ChangeCounter {
    let counter = ChangeCounter()
    withObservationTracking(read) { counter.fire() }
    return counter
}

/// How long a test waits for something that should happen soon (a write-behind reaching the
/// store, a stream delivering, a task ending) before it calls it a hang: a safety net, never a
/// measurement. Generous, because a loaded machine can keep a test from running for tens of
/// seconds: under ThreadSanitizer with both processors busy, tests that block the cooperative
/// pool's two threads (waiting for child processes, say) starve everything else for 50 s.
let hangLimit: Duration = .seconds(180)

/// The first of two outcomes: the operation's result or the deadline.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let state = Locked<(continuation: CheckedContinuation<T?, Never>?, done: Bool)>((nil, false))

    init(_ continuation: CheckedContinuation<T?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func finish(_ value: T?) {
        let continuation: CheckedContinuation<T?, Never>? = state.withLock { state in
            guard !state.done else { return nil }
            state.done = true
            let continuation = state.continuation
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: value)
    }
}

/// Runs `operation` in a new task (inheriting the caller's task-locals, so its isolation scope)
/// and returns its result, or `nil` after cancelling it if `limit` passes first.
///
/// Returns at the deadline even if the operation never does — unlike a task group, which waits
/// for every child — so a deadlock or a stream that ignores cancellation fails the test instead
/// of hanging the run.
func withDeadline<T: Sendable>(_ limit: Duration = hangLimit, _ operation: @escaping @Sendable () async -> T) async -> T? {
    await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        let outcome = FirstOutcome(continuation)
        let work = Task { await operation() }
        let timer = Task {
            try? await Task.sleep(for: limit)  // `try?`: a cancelled sleep just ends the timer early.
            guard !Task.isCancelled else { return }
            work.cancel()
            outcome.finish(nil)
        }
        Task {
            let value = await work.value
            timer.cancel()
            outcome.finish(value)
        }
    }
}

/// Runs `body` on a new thread inside the caller's AppStateKit scope; returns whether it
/// finished within `limit` (a deadlocked thread is abandoned, not waited for).
func finishesOnAnotherThread(within limit: Duration = hangLimit, _ body: @escaping @Sendable () -> Void) -> Bool {
    let scope = Application.currentContext
    let finished = DispatchSemaphore(value: 0)
    Thread {
        scope.run(body)
        finished.signal()
    }.start()
    return finished.wait(timeout: .now() + .seconds(Int(limit.components.seconds))) == .success
}

/// Waits (yielding, at most `limit`) until `condition` holds; returns whether it did.
func eventually(within limit: Duration = hangLimit, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !(await condition()) {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))  // `try?`: cancellation ends the wait early.
    }
    return true
}
