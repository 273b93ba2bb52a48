import AppStateKit

/// A clock whose time moves only when a test calls ``advance(by:)``: change streams polling on it
/// (bound with `PollClock.$current.withValue`) poll exactly when the test says, with no real
/// waiting.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Storage {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
    }

    private let storage = Locked(Storage())

    var now: Instant { storage.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// The number of tasks sleeping on the clock now.
    var sleeperCount: Int { storage.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = storage.withLock { storage in
            storage.nextSleeper += 1
            return storage.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the lock, so a cancellation either came before (and is seen here) or
                // finds the sleeper registered.
                let resumeNow: Bool = storage.withLock { storage in
                    if deadline <= storage.now || Task.isCancelled { return true }
                    storage.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = storage.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due: [Sleeper] = storage.withLock { storage in
            storage.now = storage.now.advanced(by: duration)
            let now = storage.now
            let due = storage.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { storage.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
