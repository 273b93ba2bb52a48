#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The clock ``FileFreshness`` measures ``FileFreshness/revalidationInterval`` on: a coarse
/// monotonic clock unless a test binds another, as ``PollClock`` is bound for change streams.
///
/// Each store and each file state takes the clock bound when it is created, so a test that
/// creates them inside `FreshnessClock.$current.withValue(.on(manualClock)) { … }` moves past the
/// interval by advancing that clock instead of sleeping.
package struct FreshnessClock: Sendable {
    /// Nanoseconds since some fixed start; `nil` for the system's coarse monotonic clock.
    private let reading: (@Sendable () -> UInt64)?

    /// The clock of stores and file states created in this task (and the tasks it creates).
    @TaskLocal package static var current = FreshnessClock(reading: nil)

    /// `clock`, counted in nanoseconds from its time now.
    package static func on<C: Clock<Duration>>(_ clock: C) -> FreshnessClock {
        let start = clock.now
        return FreshnessClock {
            let elapsed = start.duration(to: clock.now).components
            return UInt64(max(elapsed.seconds, 0)) &* 1_000_000_000 &+ UInt64(max(elapsed.attoseconds, 0) / 1_000_000_000)
        }
    }

    private init(reading: (@Sendable () -> UInt64)?) {
        self.reading = reading
    }

    /// The time in nanoseconds.
    @inline(__always)
    func now() -> UInt64 {
        if let reading { return reading() }
        return Self.systemNow()
    }

    /// A monotonic clock in nanoseconds, as cheap as the platform offers (a few nanoseconds, no
    /// system call; its resolution of a few milliseconds is plenty for a one-second interval).
    @inline(__always)
    private static func systemNow() -> UInt64 {
        var time = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        #else
        clock_gettime(CLOCK_MONOTONIC_RAW_APPROX, &time)
        #endif
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
