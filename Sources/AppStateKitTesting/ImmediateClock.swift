import AppStateKit

/// A clock for tests whose sleeps return at once, moving `now` to their deadline.
///
/// Code that waits between retries, polls on an interval or measures elapsed time runs through
/// every wait without waiting, and sees time pass exactly as it asked:
///
/// ```swift
/// @Test(.isolatedApplication, .overriding(\.clock, with: ImmediateClock()))
/// func pollsThreeTimes() async throws {
///     try await poller.run()   // its three `sleep(for: .seconds(5))` return at once
///     #expect(Application.dependency(\.clock).now == ImmediateClock.Instant(offset: .seconds(15)))
/// }
/// ```
///
/// `now` starts at zero. A sleep in a cancelled task throws `CancellationError`, as
/// `ContinuousClock`'s does. Use ``TestClock`` to decide yourself when sleeps end.
public final class ImmediateClock: Clock, Sendable {
    /// A point on an ``ImmediateClock``: the time since the clock was created.
    public typealias Instant = TestClock.Instant

    private let current = LockedBox(Instant(offset: .zero))

    /// A clock at instant zero.
    public init() {}

    /// The current instant: the latest deadline slept until.
    public var now: Instant {
        current.withLock { $0 }
    }

    /// Zero: the clock can represent any duration.
    public var minimumResolution: Duration { .zero }

    /// Moves `now` to `deadline` (never back) and returns without suspending. Throws
    /// `CancellationError` when the calling task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { now in
            if deadline > now { now = deadline }
        }
    }
}
