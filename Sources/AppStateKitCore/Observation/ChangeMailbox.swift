/// One change stream's wake-up flags: raised by writers (and by the stream's poll timer),
/// taken by the stream's consumer.
///
/// The mailbox holds no value — the consumer reads the entry itself once it wakes — so a writer
/// never copies a value or runs user code, and a slow consumer can't fall behind: however many
/// changes land while it is busy, it finds one raised flag and then reads the newest value.
final class ChangeMailbox: Sendable {
    private let state = LockedBox(State())

    /// Why a wait ended.
    enum Wake: Sendable {
        /// The entry changed since the consumer last read it (or it never read it).
        case changed
        /// The poll timer fired: time to check for another process's change.
        case pollDue
        /// The consuming task was cancelled; the stream ends.
        case cancelled
    }

    private struct State {
        /// A change the consumer hasn't read yet. Raised at first, so the first wait returns
        /// at once and the stream starts with the current value.
        var changed = true
        var pollDue = false
        /// Sticky: once the consumer is cancelled every wait ends at once.
        var cancelled = false
        var waiter: CheckedContinuation<Wake, Never>?

        /// Takes the most important raised flag, if any.
        mutating func take() -> Wake? {
            if cancelled { return .cancelled }
            if changed {
                changed = false
                return .changed
            }
            if pollDue {
                pollDue = false
                return .pollDue
            }
            return nil
        }
    }

    /// Records a change, waking the consumer if it waits.
    func signalChange() {
        raise { $0.changed = true }
    }

    /// Records that a poll is due, waking the consumer if it waits.
    func signalPollDue() {
        raise { $0.pollDue = true }
    }

    /// Ends every current and future wait with ``Wake/cancelled``.
    func cancel() {
        raise { $0.cancelled = true }
    }

    /// Forgets a poll the timer of a finished wait may have recorded.
    func clearPollDue() {
        state.withLock { $0.pollDue = false }
    }

    /// Whether a change is recorded that the consumer hasn't taken yet (for tests: a write that
    /// must not wake this stream is checked here at once, with no wait).
    var hasPendingChange: Bool {
        state.withLock { $0.changed }
    }

    func takeWithoutWaiting() -> Wake? {
        state.withLock { $0.take() }
    }

    /// Waits until a flag is raised (or the calling task is cancelled) and takes it.
    ///
    /// Only one task may wait at a time; a second one stops the process with a message.
    func wait() async -> Wake {
        if let wake = takeWithoutWaiting() { return wake }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                let immediate: Wake? = state.withLock { state in
                    if let wake = state.take() { return wake }
                    precondition(
                        state.waiter == nil,
                        "AppStateKit: one iterator of Application.values(of:) was used by two tasks at once; give each task its own `for await` loop"
                    )
                    state.waiter = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Applies `change` to the flags; a waiting consumer is handed its flag outside the lock.
    private func raise(_ change: (inout State) -> Void) {
        let resumption: (CheckedContinuation<Wake, Never>, Wake)? = state.withLock { state in
            change(&state)
            guard let waiter = state.waiter, let wake = state.take() else { return nil }
            state.waiter = nil
            return (waiter, wake)
        }
        if let (waiter, wake) = resumption {
            waiter.resume(returning: wake)
        }
    }
}
