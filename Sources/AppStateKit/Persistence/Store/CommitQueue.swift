import Dispatch

/// The queue behind ``FileKeyValueStore``'s group commit: changes submitted while another thread
/// commits wait, and are committed together by one of them (see `FileKeyValueStore+GroupCommit`).
///
/// A writer can't submit its next change before its last one is acknowledged, so writers that
/// keep writing would otherwise settle into groups taking turns: one batch committing while
/// the writers of the one before it are still waking up. To keep them in one batch, a batch
/// waits for the writers the previous batch acknowledged to queue again ("commit delay"): the
/// first writer to queue waits, bounded by ``Delay/maximum`` and by how long the previous batch
/// took (waiting longer than a commit costs more than committing the stragglers separately),
/// and the writer that completes the group commits it at once — it is running already, so
/// nobody has to be woken to start the batch. A writer alone never waits: the only writer its
/// batch acknowledged is itself.
final class CommitQueue: @unchecked Sendable {
    // Safe: every stored `var` here and every waiter's `state` are only accessed while `lock`
    // is held.
    private let lock = Lock()
    private var pending: [Waiter] = []
    /// Whether a thread gathers or commits a batch: others queue for the next batch.
    private var isLeading = false
    /// The writer waiting for the writers of the previous batch; whoever completes the group
    /// commits in its place.
    private var gatherer: Waiter?
    /// Writers the last batch acknowledged that haven't queued again since (any writer queueing
    /// counts as one of them): the next batch waits for them.
    private var returning = 0
    /// How long the last batch took to commit, in nanoseconds.
    private var lastCommitNanoseconds: UInt64 = 0
    private var delayPolicy: Delay
    private var delayedBatches = 0

    typealias Outcome = Result<Bool, any Error>

    /// How long a batch may wait for the writers the previous batch acknowledged to queue again.
    struct Delay: Sendable, Equatable {
        /// The longest wait.
        var maximum: Duration
        /// Whether the wait is also bounded by how long the previous batch took to commit. Tests
        /// turn this off, so which writers share a batch doesn't depend on the machine's speed.
        var isBoundedByCommitTime: Bool

        /// What stores use: at most 200 µs, and never longer than the last commit took.
        static let standard = Delay(maximum: .microseconds(200), isBoundedByCommitTime: true)
    }

    /// What the queue is doing, for tests.
    struct Status: Equatable {
        /// How many changes wait for a batch.
        var queued: Int
        /// Whether a thread gathers or commits a batch.
        var isLeading: Bool
        /// How many batches so far waited for writers of the batch before them.
        var delayedBatches: Int
    }

    private final class Waiter: @unchecked Sendable {
        // Safe: `state` is only accessed while the queue's `lock` is held.
        let change: FileKeyValueStore.Change
        /// Signalled once for each change of `state` to `lead` or `done`.
        let wakeUp = DispatchSemaphore(value: 0)
        var state: State = .waiting

        enum State {
            case waiting
            /// The previous leader handed over: gather and commit the next batch.
            case lead
            case done(Outcome)
        }

        init(_ change: FileKeyValueStore.Change) {
            self.change = change
        }
    }

    /// What a submitting thread does next.
    private enum Step {
        /// Wait to be signalled.
        case wait
        /// Wait for the previous batch's writers until `deadline`, unless one of them commits first.
        case gather(until: DispatchTime)
        /// Commit everything queued.
        case commit
        case done(Outcome)
    }

    init(delay: Delay = .standard) {
        delayPolicy = delay
    }

    /// How long a batch may wait for the writers the previous batch acknowledged.
    var delay: Delay {
        get { lock.withLock { delayPolicy } }
        set { lock.withLock { delayPolicy = newValue } }
    }

    /// What the queue is doing, for tests.
    var status: Status {
        lock.withLock { Status(queued: pending.count, isLeading: isLeading, delayedBatches: delayedBatches) }
    }

    /// Queues `change` and returns its outcome once a batch holding it was committed by `commit`
    /// (which this thread runs when it leads; `commit` returns one outcome per change, in order).
    func submit(_ change: FileKeyValueStore.Change, commit: ([FileKeyValueStore.Change]) -> [Outcome]) -> Outcome {
        let waiter = Waiter(change)
        var step = lock.withLock { queue(waiter) }
        while true {
            switch step {
            case .wait:
                waiter.wakeUp.wait()
                step = lock.withLock { woken(waiter) }
            case let .gather(deadline):
                if waiter.wakeUp.wait(timeout: deadline) == .success {
                    step = lock.withLock { woken(waiter) }
                } else {
                    step = lock.withLock { gatheringTimedOut(waiter) }
                }
            case .commit:
                return commitQueued(by: waiter, commit)
            case let .done(outcome):
                return outcome
            }
        }
    }

    /// Queues `waiter` (with `lock` held).
    private func queue(_ waiter: Waiter) -> Step {
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

    /// Starts leading the next batch (with `lock` held): waits for the writers the last batch
    /// acknowledged, if any and if the delay allows, else commits at once.
    private func lead(_ waiter: Waiter) -> Step {
        let commitTime = Duration.nanoseconds(Int64(clamping: lastCommitNanoseconds))
        let limit = delayPolicy.isBoundedByCommitTime ? min(delayPolicy.maximum, commitTime) : delayPolicy.maximum
        guard returning > 0, limit > .zero else { return .commit }
        gatherer = waiter
        delayedBatches += 1
        let (seconds, attoseconds) = limit.components
        let nanoseconds = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        return .gather(until: DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds)))
    }

    /// What `waiter` does after its semaphore was signalled (with `lock` held).
    private func woken(_ waiter: Waiter) -> Step {
        switch waiter.state {
        case .waiting:
            return .wait
        case .lead:
            waiter.state = .waiting
            return lead(waiter)
        case let .done(outcome):
            return .done(outcome)
        }
    }

    /// What a gathering `waiter` does when its wait ran out (with `lock` held): commit what is
    /// queued, unless a returning writer completed the group first (then it commits this
    /// waiter's change, and signals it as it does every member).
    private func gatheringTimedOut(_ waiter: Waiter) -> Step {
        guard gatherer === waiter else { return .wait }
        gatherer = nil
        return .commit
    }

    /// Commits everything queued, then hands over to the first writer queued meanwhile, or
    /// stops leading.
    private func commitQueued(by waiter: Waiter, _ commit: ([FileKeyValueStore.Change]) -> [Outcome]) -> Outcome {
        let batch = lock.withLock {
            // Whoever hasn't returned by now is not awaited.
            returning = 0
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let outcomes = commit(batch.map(\.change))
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        var mine: Outcome?
        let next: Waiter? = lock.withLock {
            for (member, outcome) in zip(batch, outcomes) {
                if member === waiter { mine = outcome } else { member.state = .done(outcome) }
            }
            // Every member may write again at once; writers already queued are not awaited.
            returning = batch.count
            lastCommitNanoseconds = elapsed
            guard let next = pending.first else {
                isLeading = false
                return nil
            }
            next.state = .lead
            return next
        }
        for member in batch where member !== waiter { member.wakeUp.signal() }
        next?.wakeUp.signal()
        return mine!
    }
}
