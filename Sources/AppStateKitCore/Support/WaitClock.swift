/// The one clock of every wait and interval in AppStateKit: a change stream's polls, and
/// `PostgresSyncStore`'s reconnect pauses, deadlines, heartbeats, reconciliation interval and
/// rate-limited reports. A `ContinuousClock` unless a test binds another:
///
/// ```swift
/// let clock = TestClock()
/// let store = WaitClock.$current.withValue(WaitClock(clock)) { PostgresSyncStore(…) }
/// await clock.advance(by: .seconds(30))   // the store's reconciliation is due now
/// ```
///
/// Whatever runs a loop or keeps instants takes the clock bound when it is created or starts
/// (a store keeps it for its life), so advancing the test's clock drives it without real
/// sleeps. Its instants count the time since the clock was bound, so code keeps them (a rate
/// window's start) without knowing the bound clock's type.
///
/// Not every reading of time is a wait: the persisted read path's freshness check reads its own
/// coarse clock (`FreshnessClock`, on every read), durations measured for metrics are real
/// time, and timestamps written into records (`Date()` for `savedAt`, a status's `since`) are
/// data.
package struct WaitClock: Clock {
    /// A point on a ``WaitClock``: the time since it was bound.
    package struct Instant: InstantProtocol {
        /// How long after the clock was bound this instant lies.
        package let offset: Duration

        package init(offset: Duration) {
            self.offset = offset
        }

        package func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        package func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        package static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    /// The clock of loops started and stores created in this task (and the tasks it creates).
    @TaskLocal package static var current = WaitClock(ContinuousClock())

    /// The bound clock, which every sleep waits on.
    private let base: any Clock<Duration>
    /// The time on `base` since this clock was made.
    private let elapsed: @Sendable () -> Duration

    /// `clock`, its instants counted from its time now.
    package init<Base: Clock<Duration>>(_ clock: Base) {
        let start = clock.now
        base = clock
        elapsed = { start.duration(to: clock.now) }
    }

    package var now: Instant { Instant(offset: elapsed()) }

    package var minimumResolution: Duration { base.minimumResolution }

    /// Sleeps on the bound clock until `deadline`; returns at once when it has passed. Throws
    /// `CancellationError` when the calling task is cancelled.
    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let remaining = now.duration(to: deadline)
        guard remaining > .zero else {
            try Task.checkCancellation()
            return
        }
        try await base.sleep(for: remaining, tolerance: tolerance)
    }
}
