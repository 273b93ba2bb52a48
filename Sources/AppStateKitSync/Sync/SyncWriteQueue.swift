import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// One application's SyncState write-behind queue: a lane per key, so that the queue is bounded
/// by the number of keys and a key whose writes keep failing holds no other key back.
///
/// **Lanes.** Each key (under one store binding) has a lane: the writes of that key waiting, in
/// the order they were made. A setter's write whose lane ends with a not-yet-started setter
/// write of the same entry replaces it (the newest value wins; the replaced one settles with
/// it), so a lane holds at most one setter write after each awaited write (``write(_:)``'s).
///
/// **Order.** One worker commits one write at a time: the lane head made first. Without
/// failures, writes therefore reach the store in the order they were made, except that a
/// replaced value is skipped (another process may skip a value, never see this application's
/// writes out of order). A write that fails with a transient error (``SyncStoreError/isTransient``)
/// parks its lane: the worker retries it after a growing, randomised pause (``retryDelay(after:)``)
/// and meanwhile commits the other lanes, so *under failure* a later write of another key can
/// commit before it. Writes of one key always commit in the order they were made.
///
/// **Settling.** A setter's write is retried until it commits (or its store is replaced, or it
/// fails with an error retrying can't fix: then it settles with that error, reported by its
/// entry). An awaited write is never retried: its caller gets the error.
///
/// **Barriers.** ``barrier(mode:timeout:)`` waits for the writes queued before it: until each
/// committed or failed (``Mode/committed``, `flushSyncWrites`), or until each settled or failed
/// once more after the barrier began (``Mode/attempted``, what `read()` and `update` wait for,
/// so that they see a write the store accepts again, but don't wait out an outage).
final class SyncWriteQueue: Sendable {
    private let state = LockedBox(State())
    /// Whether writes under a binding generation may still be retried (its store is current).
    private let isCurrent: @Sendable (UInt64) -> Bool
    /// Reports a message through the owning application's logger.
    private let report: @Sendable (String) -> Void

    init(isCurrent: @escaping @Sendable (UInt64) -> Bool, report: @escaping @Sendable (String) -> Void) {
        self.isCurrent = isCurrent
        self.report = report
    }

    deinit {
        state.withLock { $0.retryPause }?.cancel()
    }

    /// A write waiting in a lane.
    struct QueuedWrite: Sendable {
        let key: String
        let data: Data?
        let store: any SyncStore
        let generation: UInt64
        /// Who queued a setter's (un-awaited) write; `nil` for a write whose caller waits for
        /// its own commit, which is never replaced, never replaces another and never retried.
        let origin: ObjectIdentifier?
        /// Removes the key for good (``SyncStore/delete(forKey:)``) instead of writing `data`
        /// (which is then `nil`); always awaited.
        var deletes = false
        /// Receives, once, the outcome and how many earlier setter writes this one replaced
        /// while they waited (they were never sent, and settle with it).
        let settle: @Sendable (Result<SyncRecord, any Error>, _ superseded: Int) -> Void
    }

    /// What a barrier waits for.
    enum Mode: Sendable {
        /// Every earlier write committed or failed for good.
        case committed
        /// Every earlier write settled or failed at least once since the barrier began (its lane
        /// is then parked, waiting to retry).
        case attempted
    }

    /// How a ``barrier(mode:timeout:)`` ended.
    enum BarrierOutcome: Sendable, Equatable {
        /// Every earlier write committed (or, for ``Mode/attempted``, was attempted).
        case done
        /// Writes of these keys failed for good while the barrier waited.
        case failed(keys: [String])
        /// These keys still had writes pending when the timeout passed.
        case timedOut(keys: [String])
        /// The waiting task was cancelled; the writes stay queued.
        case cancelled
    }

    /// Why a barrier stopped waiting before its writes were done.
    private enum Ending: Sendable {
        case timedOut, cancelled
    }

    private struct LaneID: Hashable {
        let key: String
        let generation: UInt64
    }

    private struct Item {
        var write: QueuedWrite
        /// When the (newest) value was queued: lanes are served in this order.
        var order: UInt64
        /// When the oldest value it replaced was queued: barriers wait for it from then.
        var first: UInt64
        var superseded = 0
        var storeID: ObjectIdentifier
    }

    private struct Lane {
        var items: [Item] = []
        var inFlight = false
        /// Consecutive transient failures of the head.
        var failures = 0
        var retryAt: ContinuousClock.Instant?
        /// The first failure of the current streak was reported.
        var reportedFailure = false
        /// The queue's sequence number when the head last failed (0: it hasn't).
        var failedAt: UInt64 = 0
    }

    private struct Barrier {
        let id: UInt64
        let sequence: UInt64
        let mode: Mode
        /// Only writes to this store count (`nil`: every write).
        let storeID: ObjectIdentifier?
        var failedKeys: Set<String> = []
        let resume: @Sendable (BarrierOutcome) -> Void
    }

    private struct State {
        var sequence: UInt64 = 0
        var lanes: [LaneID: Lane] = [:]
        var barriers: [Barrier] = []
        /// Barriers ended (timed out, cancelled) before they began to wait, by id.
        var endedEarly: [UInt64: Ending] = [:]
        var isWorking = false
        /// The last retry pause started (a detached sleep that wakes the worker); cancelled when
        /// the queue is released.
        var retryPause: Task<Void, Never>?

        /// Whether a write queued before `barrier` still holds it.
        func isBlocked(_ barrier: Barrier) -> Bool {
            !blockingKeys(barrier).isEmpty
        }

        /// The keys of the writes queued before `barrier` that still hold it.
        func blockingKeys(_ barrier: Barrier) -> [String] {
            var keys: Set<String> = []
            for (id, lane) in lanes {
                if barrier.mode == .attempted, lane.failedAt > barrier.sequence { continue }
                if lane.items.contains(where: { $0.first < barrier.sequence && (barrier.storeID == nil || $0.storeID == barrier.storeID) }) {
                    keys.insert(id.key)
                }
            }
            return keys.sorted()
        }

        /// Removes and returns the barriers no write holds any more.
        mutating func releasedBarriers() -> [(Barrier, BarrierOutcome)] {
            var released: [(Barrier, BarrierOutcome)] = []
            var waiting: [Barrier] = []
            for barrier in barriers {
                if isBlocked(barrier) {
                    waiting.append(barrier)
                } else {
                    released.append((barrier, barrier.failedKeys.isEmpty ? .done : .failed(keys: barrier.failedKeys.sorted())))
                }
            }
            barriers = waiting
            return released
        }

        /// Marks the worker running; returns whether it must be started.
        mutating func markWorking() -> Bool {
            guard !isWorking else { return false }
            isWorking = true
            return true
        }
    }

    /// The identity writes to `store` are compared by (a value type's boxes never match).
    static func identity(of store: any SyncStore) -> ObjectIdentifier {
        ObjectIdentifier(store as AnyObject)
    }

    // MARK: Queueing

    /// Queues `write` at its key's lane (replacing a setter write of the same origin still
    /// waiting at the lane's tail, if `write` is a setter's) and starts the worker if it is idle.
    func enqueue(_ write: QueuedWrite) {
        PendingSyncWrites.begin(write.key)
        let start: Bool = state.withLock { state in
            state.sequence += 1
            let id = LaneID(key: write.key, generation: write.generation)
            var lane = state.lanes[id] ?? Lane()
            var item = Item(write: write, order: state.sequence, first: state.sequence, storeID: Self.identity(of: write.store))
            if let origin = write.origin, let last = lane.items.last, last.write.origin == origin,
               !(lane.inFlight && lane.items.count == 1) {
                item.first = last.first
                item.superseded = last.superseded + 1
                lane.items[lane.items.count - 1] = item
            } else {
                lane.items.append(item)
            }
            state.lanes[id] = lane
            return state.markWorking()
        }
        if start { startWorker() }
    }

    /// The number of values waiting or being committed, and their keys (sorted, unique).
    var pending: (count: Int, keys: [String]) {
        state.withLock { state in
            let count = state.lanes.values.reduce(0) { $0 + $1.items.count }
            let keys = Set(state.lanes.filter { !$0.value.items.isEmpty }.keys.map(\.key))
            return (count, keys.sorted())
        }
    }

    // MARK: Barriers

    /// Waits for the writes queued before the call (to `store` only, when given), as `mode` says,
    /// for at most `timeout` (`nil`: no limit; otherwise the wait ends with
    /// ``BarrierOutcome/timedOut(keys:)``). Cancelling the calling task ends it at once with
    /// ``BarrierOutcome/cancelled``. The timer is a child task of the call: nothing of the
    /// barrier outlives it.
    func barrier(mode: Mode, store: (any SyncStore)? = nil, timeout: Duration? = nil) async -> BarrierOutcome {
        let storeID = store.map(Self.identity(of:))
        let id = state.withLock { state in
            state.sequence += 1
            return state.sequence
        }
        let outcome: BarrierOutcome
        if let timeout {
            outcome = await wait(barrier: id, mode: mode, storeID: storeID, timeout: timeout)
        } else {
            outcome = await wait(barrier: id, mode: mode, storeID: storeID)
        }
        // A timer or cancellation that came after the wait ended left a mark.
        state.withLock { _ = $0.endedEarly.removeValue(forKey: id) }
        return outcome
    }

    /// Waits as barrier `id` for at most `timeout`, with the timer as a child task.
    private func wait(barrier id: UInt64, mode: Mode, storeID: ObjectIdentifier?, timeout: Duration) async -> BarrierOutcome {
        await withTaskGroup(of: BarrierOutcome?.self) { group in
            group.addTask { await self.wait(barrier: id, mode: mode, storeID: storeID) }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                    self.end(barrier: id, .timedOut)
                } catch {
                    // The wait ended first (or the caller was cancelled, which ends it too).
                }
                return nil
            }
            var outcome = BarrierOutcome.cancelled
            for await result in group {
                guard let result else { continue }
                outcome = result
                group.cancelAll()
            }
            return outcome
        }
    }

    /// Waits as barrier `id` until the writes queued before it are done, it is ended, or the
    /// calling task is cancelled.
    private func wait(barrier id: UInt64, mode: Mode, storeID: ObjectIdentifier?) async -> BarrierOutcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: BarrierOutcome? = state.withLock { state in
                    let barrier = Barrier(id: id, sequence: id, mode: mode, storeID: storeID) { continuation.resume(returning: $0) }
                    switch state.endedEarly.removeValue(forKey: id) {
                    case .timedOut?: return .timedOut(keys: state.blockingKeys(barrier))
                    case .cancelled?: return .cancelled
                    case nil: break
                    }
                    guard state.isBlocked(barrier) else { return .done }
                    state.barriers.append(barrier)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            end(barrier: id, .cancelled)
        }
    }

    /// Ends barrier `id` (with the keys still pending, for a timeout) if it is waiting, or
    /// before it begins to wait.
    private func end(barrier id: UInt64, _ ending: Ending) {
        let ended: (Barrier, BarrierOutcome)? = state.withLock { state in
            guard let index = state.barriers.firstIndex(where: { $0.id == id }) else {
                state.endedEarly[id] = ending
                return nil
            }
            let barrier = state.barriers.remove(at: index)
            switch ending {
            case .timedOut: return (barrier, .timedOut(keys: state.blockingKeys(barrier)))
            case .cancelled: return (barrier, .cancelled)
            }
        }
        if let (barrier, outcome) = ended { barrier.resume(outcome) }
    }

    // MARK: Worker

    private func startWorker() {
        let activity = BackgroundActivities.begin("SyncWriteQueue worker", owner: self)
        Task.detached { [self] in
            defer { activity.end() }
            await work()
        }
    }

    /// Starts the worker if it is idle (a parked lane's retry time came).
    private func wake() {
        if state.withLock({ $0.markWorking() }) { startWorker() }
    }

    private enum Step {
        case write(LaneID, Item)
        case sleep(until: ContinuousClock.Instant)
        case idle
    }

    private func work() async {
        while true {
            switch nextStep() {
            case let .write(id, item):
                let result: Result<SyncRecord, any Error>
                do {
                    let write = item.write
                    result = .success(write.deletes ? try await write.store.delete(forKey: write.key) : try await write.store.write(write.data, forKey: write.key))
                } catch {
                    result = .failure(error)
                }
                finish(id, item, result)
            case let .sleep(until):
                let activity = BackgroundActivities.begin("SyncWriteQueue retry pause", owner: self)
                let pause = Task.detached { [weak self] in
                    defer { activity.end() }
                    // Cancelled only when the queue is released (then nothing is left to retry).
                    try? await Task.sleep(until: until, clock: .continuous)
                    self?.wake()
                }
                state.withLock { $0.retryPause = pause }
                return
            case .idle:
                return
            }
        }
    }

    /// The next write to commit: the head, made first, of a lane that is neither busy nor
    /// waiting to retry. Marks its lane busy, or the worker idle when there is none.
    private func nextStep() -> Step {
        state.withLock { state in
            let now = ContinuousClock.now
            var best: (LaneID, Item)?
            var earliestRetry: ContinuousClock.Instant?
            for (id, lane) in state.lanes where !lane.inFlight {
                guard let head = lane.items.first else { continue }
                if let retryAt = lane.retryAt, retryAt > now {
                    earliestRetry = min(earliestRetry ?? retryAt, retryAt)
                    continue
                }
                if best == nil || head.order < best!.1.order { best = (id, head) }
            }
            if let (id, item) = best {
                state.lanes[id]!.inFlight = true
                return .write(id, item)
            }
            state.isWorking = false
            if let earliestRetry { return .sleep(until: earliestRetry) }
            return .idle
        }
    }

    /// Settles or parks the head of lane `id` after its attempt ended with `result`.
    private func finish(_ id: LaneID, _ attempted: Item, _ result: Result<SyncRecord, any Error>) {
        let retry: Bool
        if case let .failure(error) = result, attempted.write.origin != nil,
           (error as? SyncStoreError)?.isTransient == true, isCurrent(id.generation) {
            retry = true
        } else {
            retry = false
        }
        var settled: [(Item, Result<SyncRecord, any Error>)] = []
        var messages: [String] = []
        let released: [(Barrier, BarrierOutcome)] = state.withLock { state in
            var lane = state.lanes[id]!
            lane.inFlight = false
            // The head may have been replaced by a newer setter value while it was attempted
            // only if it was not in flight: it was, so it is still the attempted item.
            if retry {
                lane.failures += 1
                state.sequence += 1
                lane.failedAt = state.sequence
                lane.retryAt = ContinuousClock.now.advanced(by: Self.retryDelay(after: lane.failures))
                if !lane.reportedFailure {
                    lane.reportedFailure = true
                    if case let .failure(error) = result {
                        messages.append("AppStateKit: SyncState \"\(id.key)\" could not be written to the sync store: \(error); the write is kept and retried until the store accepts it (Application.pendingSyncWriteKeys lists such keys)")
                    }
                }
                // Awaited writes behind it are not retried: their callers get the error now.
                if case let .failure(error) = result {
                    let awaited = lane.items.dropFirst().filter { $0.write.origin == nil }
                    lane.items = [lane.items[0]] + lane.items.dropFirst().filter { $0.write.origin != nil }
                    settled += awaited.map { ($0, .failure(error)) }
                }
                // A newer setter value queued behind the failed one replaces it: the retry
                // sends the newest value.
                while lane.items.count >= 2, lane.items[1].write.origin == lane.items[0].write.origin {
                    let replaced = lane.items.removeFirst()
                    lane.items[0].first = replaced.first
                    lane.items[0].superseded += replaced.superseded + 1
                }
            } else {
                lane.items.removeFirst()
                settled.append((attempted, result))
                if case .success = result, lane.reportedFailure {
                    messages.append("AppStateKit: SyncState \"\(id.key)\" was written to the sync store after \(lane.failures + 1) attempts")
                }
                lane.failures = 0
                lane.retryAt = nil
                lane.reportedFailure = false
            }
            state.lanes[id] = lane.items.isEmpty ? nil : lane
            for (item, outcome) in settled {
                guard case .failure = outcome else { continue }
                for index in state.barriers.indices where state.barriers[index].sequence > item.first {
                    state.barriers[index].failedKeys.insert(id.key)
                }
            }
            return state.releasedBarriers()
        }
        for message in messages { report(message) }
        for (item, outcome) in settled {
            item.write.settle(outcome, item.superseded)
            PendingSyncWrites.end(item.write.key, count: 1 + item.superseded)
        }
        for (barrier, outcome) in released { barrier.resume(outcome) }
    }

    /// How long a lane waits before retrying after its `failures`-th consecutive failure:
    /// 10 ms doubling up to 2 s, each randomised to between half and all of it.
    static func retryDelay(after failures: Int) -> Duration {
        let milliseconds = min(2_000, 10 << min(failures - 1, 8))
        return .milliseconds(Int.random(in: (milliseconds / 2)...milliseconds))
    }
}
