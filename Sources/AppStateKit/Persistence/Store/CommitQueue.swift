import Dispatch

/// The queue behind ``FileKeyValueStore``'s group commit: changes submitted while another thread
/// commits wait, and are committed together by one of them (see `FileKeyValueStore+GroupCommit`).
final class CommitQueue: @unchecked Sendable {
    // Safe: `pending`, `isLeading` and every waiter's `state` are only accessed while `lock` is
    // held.
    private let lock = Lock()
    private var pending: [Waiter] = []
    private var isLeading = false

    typealias Outcome = Result<Bool, any Error>

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

    /// Queues `change` and returns its outcome once a batch holding it was committed by `commit`
    /// (which this thread runs when it leads; `commit` returns one outcome per change, in order).
    func submit(_ change: FileKeyValueStore.Change, commit: ([FileKeyValueStore.Change]) -> [Outcome]) -> Outcome {
        let waiter = Waiter(change)
        let leads = lock.withLock {
            pending.append(waiter)
            if isLeading { return false }
            isLeading = true
            return true
        }
        if !leads {
            waiter.wakeUp.wait()
            let state = lock.withLock { waiter.state }
            if case let .done(outcome) = state { return outcome }
        }
        // Leading: commit everything queued so far, then hand over or stop leading.
        let batch = lock.withLock {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        let outcomes = commit(batch.map(\.change))
        var mine: Outcome?
        let next: Waiter? = lock.withLock {
            for (member, outcome) in zip(batch, outcomes) {
                if member === waiter { mine = outcome } else { member.state = .done(outcome) }
            }
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
