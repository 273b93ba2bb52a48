import AppStateKitCore
import Dispatch

/// The queue behind ``FileKeyValueStore``'s group commit. The first writer to arrive leads: it
/// commits every change queued so far as one batch; writers arriving meanwhile queue for the
/// next batch, which the leader hands to the first of them.
///
/// Writers that keep writing would otherwise settle into groups taking turns (one batch
/// committing while the last one's writers wake up), so a batch waits for the writers the
/// previous batch acknowledged to queue again: the first to queue waits, at most
/// ``Delay/maximum`` and the previous commit's duration, and the writer completing the group
/// commits it at once. A writer alone never waits.
final class CommitQueue: Sendable {
    private let state: LockedBox<State>

    /// What the queue's lock guards.
    private struct State {
        var pending: [Waiter] = []
        /// Whether a thread gathers or commits a batch: others queue for the next batch.
        var isLeading = false
        /// The writer waiting for the writers of the previous batch; whoever completes the
        /// group commits in its place.
        var gatherer: Waiter?
        /// Writers the last batch acknowledged that haven't queued again since (any writer
        /// queueing counts as one of them): the next batch waits for them.
        var returning = 0
        var lastCommit = Duration.zero
        var delay: Delay
        var delayedBatches = 0
        /// What waiters were told and haven't seen yet (a waiter without an entry waits on).
        var news: [ObjectIdentifier: News] = [:]

        mutating func queue(_ waiter: Waiter) -> Step {
            pending.append(waiter)
            if returning > 0 { returning -= 1 }
            guard isLeading else {
                isLeading = true
                return lead(waiter)
            }
            guard returning == 0, gatherer != nil else { return .wait }
            // The group is complete: commit it now; the gatherer is one of its members.
            gatherer = nil
            return .commit
        }

        /// Starts leading the next batch: waits for the last batch's writers if the delay
        /// allows, else commits at once.
        mutating func lead(_ waiter: Waiter) -> Step {
            let limit = delay.isBoundedByCommitTime ? min(delay.maximum, lastCommit) : delay.maximum
            guard returning > 0, limit > .zero else { return .commit }
            gatherer = waiter
            delayedBatches += 1
            return .gather(until: DispatchTime.now() + .nanoseconds(Int(limit / .nanoseconds(1))))
        }

        /// What `waiter` does after its semaphore was signalled.
        mutating func woken(_ waiter: Waiter) -> Step {
            switch news.removeValue(forKey: ObjectIdentifier(waiter)) {
            case nil:
                return .wait
            case .lead:
                return lead(waiter)
            case let .done(outcome):
                return .done(outcome)
            }
        }

        /// What a gathering `waiter` does when its wait ran out: commit what is queued, unless a
        /// returning writer completed the group first (and commits this waiter's change).
        mutating func gatheringTimedOut(_ waiter: Waiter) -> Step {
            guard gatherer === waiter else { return .wait }
            gatherer = nil
            return .commit
        }
    }

    /// What a waiter is told before its semaphore is signalled.
    private enum News {
        /// The previous leader handed over: gather and commit the next batch.
        case lead
        case done(Outcome)
    }

    typealias Outcome = Result<Bool, any Error>

    /// How long a batch may wait for the previous batch's writers to queue again.
    struct Delay: Sendable, Equatable {
        var maximum: Duration
        /// Whether the wait is also bounded by how long the previous batch took to commit. Tests
        /// turn this off, so which writers share a batch doesn't depend on the machine's speed.
        var isBoundedByCommitTime: Bool

        /// At most 200 µs, and never longer than the last commit took.
        static let standard = Delay(maximum: .microseconds(200), isBoundedByCommitTime: true)
    }

    /// What the queue is doing, for tests.
    struct Status: Equatable {
        var queued: Int
        var isLeading: Bool
        /// How many batches so far waited for writers of the batch before them.
        var delayedBatches: Int
    }

    private final class Waiter: Sendable {
        let change: FileKeyValueStore.Change
        /// Signalled once for each news it is told.
        let wakeUp = DispatchSemaphore(value: 0)

        init(_ change: FileKeyValueStore.Change) {
            self.change = change
        }
    }

    /// What a submitting thread does next.
    private enum Step {
        case wait
        /// Wait for the previous batch's writers until `deadline`, unless one of them commits first.
        case gather(until: DispatchTime)
        case commit
        case done(Outcome)
    }

    init(delay: Delay = .standard) {
        state = LockedBox(State(delay: delay))
    }

    var delay: Delay {
        get { state.withLock { $0.delay } }
        set { state.withLock { $0.delay = newValue } }
    }

    var status: Status {
        state.withLock { Status(queued: $0.pending.count, isLeading: $0.isLeading, delayedBatches: $0.delayedBatches) }
    }

    /// Queues `change` and returns its outcome once a batch holding it was committed by `commit`
    /// (which this thread runs when it leads; `commit` returns one outcome per change, in order).
    func submit(_ change: FileKeyValueStore.Change, commit: ([FileKeyValueStore.Change]) -> [Outcome]) -> Outcome {
        let waiter = Waiter(change)
        var step = state.withLock { $0.queue(waiter) }
        while true {
            switch step {
            case .wait:
                waiter.wakeUp.wait()
                step = state.withLock { $0.woken(waiter) }
            case let .gather(deadline):
                if waiter.wakeUp.wait(timeout: deadline) == .success {
                    step = state.withLock { $0.woken(waiter) }
                } else {
                    step = state.withLock { $0.gatheringTimedOut(waiter) }
                }
            case .commit:
                return commitQueued(by: waiter, commit)
            case let .done(outcome):
                return outcome
            }
        }
    }

    /// Commits everything queued, then hands over to the first writer queued meanwhile.
    private func commitQueued(by waiter: Waiter, _ commit: ([FileKeyValueStore.Change]) -> [Outcome]) -> Outcome {
        let batch = state.withLock { state in
            // Whoever hasn't returned by now is not awaited.
            state.returning = 0
            defer { state.pending.removeAll(keepingCapacity: true) }
            return state.pending
        }
        var outcomes: [Outcome] = []
        let elapsed = ContinuousClock().measure { outcomes = commit(batch.map(\.change)) }
        var mine: Outcome?
        let next: Waiter? = state.withLock { state in
            for (member, outcome) in zip(batch, outcomes) {
                if member === waiter { mine = outcome } else { state.news[ObjectIdentifier(member)] = .done(outcome) }
            }
            // Every member may write again at once; writers already queued are not awaited.
            state.returning = batch.count
            state.lastCommit = elapsed
            guard let next = state.pending.first else {
                state.isLeading = false
                return nil
            }
            state.news[ObjectIdentifier(next)] = .lead
            return next
        }
        for member in batch where member !== waiter { member.wakeUp.signal() }
        next?.wakeUp.signal()
        return mine!
    }
}

