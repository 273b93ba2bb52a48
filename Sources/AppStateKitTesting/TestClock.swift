import AppStateKit

/// A clock for tests whose time moves only when the test says so.
///
/// `now` starts at zero and stands still. `sleep(until:)` suspends until ``advance(by:)`` or
/// ``advance(to:)`` moves `now` to the deadline (or past it), so a test controls exactly when
/// timed code wakes up, without waiting:
///
/// ```swift
/// @Test(.isolatedApplication)
/// func retriesAfterOneSecond() async throws {
///     let clock = TestClock()
///     try await Application.withOverrides { $0.override(\.clock, with: clock) } operation: {
///         let retry = Task { try await Application.dependency(\.clock).sleep(for: .seconds(1)) }
///         while clock.sleeperCount == 0 { await Task.yield() }
///         await clock.advance(by: .seconds(1))   // the sleep ends now
///         try await retry.value
///     }
/// }
/// ```
///
/// A sleep whose task is cancelled throws `CancellationError`, as `ContinuousClock`'s does. The
/// clock is a class, so every copy of a reference (the override and the test's own) moves the
/// same time.
public final class TestClock: Clock, Sendable {
    /// A point on a ``TestClock``: the time since the clock was created.
    public struct Instant: InstantProtocol, Sendable {
        /// How far this instant lies after the clock's start.
        public let offset: Duration

        /// The instant `offset` after the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` after this one.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    /// A suspended `sleep`: when it ends, and how to resume it.
    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Storage {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let storage = LockedBox(Storage())

    /// A clock at instant zero with nobody sleeping.
    public init() {}

    /// The current instant: moved only by ``advance(by:)`` and ``advance(to:)``.
    public var now: Instant {
        storage.withLock { $0.now }
    }

    /// Zero: the clock can represent any duration.
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are suspended, waiting for the clock to reach their deadline.
    ///
    /// A test that starts timed work in another task can wait for it to begin sleeping before
    /// advancing: `while clock.sleeperCount == 0 { await Task.yield() }`.
    public var sleeperCount: Int {
        storage.withLock { $0.sleepers.count }
    }

    /// Suspends until the clock is advanced to `deadline` or beyond; returns at once when it is
    /// there already. Throws `CancellationError` when the calling task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = storage.withLock { storage in
            defer { storage.nextID += 1 }
            return storage.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = storage.withLock { storage in
                    guard deadline > storage.now else { return true }
                    storage.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let cancelled = storage.withLock { storage -> Sleeper? in
                guard let index = storage.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return storage.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock `duration` forward, ending every sleep whose deadline it reaches, earliest
    /// first; then yields, so the tasks it woke can run.
    public func advance(by duration: Duration = .zero) async {
        await advance(to: now.advanced(by: duration))
    }

    /// Moves the clock forward to `deadline` (never back), ending every sleep whose deadline it
    /// reaches, earliest first; then yields, so the tasks it woke can run.
    public func advance(to deadline: Instant) async {
        let woken = storage.withLock { storage -> [Sleeper] in
            if deadline > storage.now { storage.now = deadline }
            let now = storage.now
            let due = storage.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            storage.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken {
            sleeper.continuation.resume()
        }
        await Task.yield()
    }
}
