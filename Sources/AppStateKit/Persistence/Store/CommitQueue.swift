import Dispatch

/// The queue behind ``FileKeyValueStore``'s group commit: changes submitted while another thread
/// commits wait, and are committed together by one of them (see `FileKeyValueStore+GroupCommit`).
///
/// A writer can't submit its next change before its last one is acknowledged, so writers that
/// keep writing would otherwise settle into groups taking turns: one batch committing while
/// the writers of the one before it are still waking up. To keep them in one batch, a leader
/// about to take a batch first waits for the writers the previous batch acknowledged to queue
/// again ("commit delay"), bounded by ``Delay/maximum`` and by how long the previous batch took
/// (waiting longer than a commit costs more than committing the stragglers separately). A
/// writer alone never waits: the only writer its batch acknowledged is itself.
final class CommitQueue: @unchecked Sendable {
    // Safe: every stored `var` here and every waiter's `state` are only accessed while `lock`
    // is held.
    private let lock = Lock()
    /// Broadcast when the last writer a gathering leader waits for has queued.
    private let gathered = Condition()
    private var pending: [Waiter] = []
    private var isLeading = false
    /// Writers the last batch acknowledged that haven't queued again since (any writer queueing
    /// counts as one of them): the next leader waits for them.
    private var returning = 0
    /// Whether a leader is waiting on `gathered`.
    private var isGathering = false
    /// How long the last batch took to commit, in nanoseconds.
    private var lastCommitNanoseconds: UInt64 = 0
    private var delayPolicy: Delay
    private var delayedBatches = 0

    typealias Outcome = Result<Bool, any Error>

    /// How long a leader may wait for the writers the previous batch acknowledged to queue again.
    struct Delay: Sendable, Equatable {
        /// The longest wait.
        var maximum: Duration
        /// Whether the wait is also bounded by how long the previous batch took to commit. Tests
        /// turn this off, so which writers share a batch doesn't depend on the machine's speed.
        var isBoundedByCommitTime: Bool

        /// What stores use: at most 200 µs, and never longer than the last commit took.
        static let standard = Delay(maximum: .microseconds(200), isBoundedByCommitTime: true)
    }

    private final class Waiter: @unchecked Sendable {
        // Safe: `state` is only accessed while the queue's `lock` is held.
        let change: FileKeyValueStore.Change
        let wakeUp = DispatchSemaphore(value: 0)
        var state: State = .waiting

        enum State {
            case waiting
            /// The previous leader handed over: commit the next batch.
            case lead
            case done(Outcome)
        }

        init(_ change: FileKeyValueStore.Change) {
            self.change = change
        }
    }

    init(delay: Delay = .standard) {
        delayPolicy = delay
    }

    /// How long a leader may wait for the writers the previous batch acknowledged.
    var delay: Delay {
        get { lock.withLock { delayPolicy } }
        set { lock.withLock { delayPolicy = newValue } }
    }

    /// What the queue is doing, for tests.
    struct Status: Equatable {
        /// How many changes wait for a batch.
        var queued: Int
        /// Whether a thread leads (gathers or commits a batch).
        var isLeading: Bool
        /// How many batches so far waited for writers of the batch before them.
        var delayedBatches: Int
    }

    /// What the queue is doing, for tests.
    var status: Status {
        lock.withLock { Status(queued: pending.count, isLeading: isLeading, delayedBatches: delayedBatches) }
    }

    /// Queues `change` and returns its outcome once a batch holding it was committed by `commit`
    /// (which this thread runs when it leads; `commit` returns one outcome per change, in order).
    func submit(_ change: FileKeyValueStore.Change, commit: ([FileKeyValueStore.Change]) -> [Outcome]) -> Outcome {
        let waiter = Waiter(change)
        let (leads, completesGathering) = lock.withLock {
            pending.append(waiter)
            var completes = false
            if returning > 0 {
                returning -= 1
                completes = returning == 0 && isGathering
            }
            if isLeading { return (false, completes) }
            isLeading = true
            return (true, completes)
        }
        if completesGathering { gathered.broadcast() }
        if !leads {
            waiter.wakeUp.wait()
            let state = lock.withLock { waiter.state }
            if case let .done(outcome) = state { return outcome }
        }
        // Leading: wait for the writers of the previous batch, commit everything queued by then,
        // then hand over or stop leading.
        let batch = lock.withLock {
            gatherReturningWriters()
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

    /// Waits, with `lock` held (the wait releases it), until every writer the previous batch
    /// acknowledged has queued again or the delay is up; whoever hasn't by then is not awaited.
    private func gatherReturningWriters() {
        guard returning > 0 else { return }
        defer { returning = 0 }
        let commitTime = Duration.nanoseconds(Int64(clamping: lastCommitNanoseconds))
        let limit = delayPolicy.isBoundedByCommitTime ? min(delayPolicy.maximum, commitTime) : delayPolicy.maximum
        guard limit > .zero else { return }
        let deadline = Condition.deadline(after: limit)
        delayedBatches += 1
        isGathering = true
        while returning > 0, lock.wait(on: gathered, until: deadline) {}
        isGathering = false
    }
}
