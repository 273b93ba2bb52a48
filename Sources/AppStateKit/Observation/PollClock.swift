/// The clock change streams wait on between polls for other processes' changes (see
/// ``Application/values(of:pollInterval:)``): a `ContinuousClock` unless a test binds another.
///
/// Each `for await` loop takes the clock bound when the loop starts, so a test that starts its
/// loops inside `PollClock.$current.withValue(manualClock) { … }` drives polling by advancing
/// that clock instead of waiting for real intervals.
package enum PollClock {
    /// The clock of loops started in this task (and the tasks it creates).
    @TaskLocal package static var current: any Clock<Duration> = ContinuousClock()
}
