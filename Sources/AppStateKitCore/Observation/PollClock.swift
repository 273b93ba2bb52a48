/// The clock change streams poll on (``Application/values(of:pollInterval:)``): a
/// `ContinuousClock` unless a test binds another. Each loop takes the clock bound when it
/// starts, so a test starting loops in `PollClock.$current.withValue(manualClock) { … }` drives
/// polling by advancing that clock.
package enum PollClock {
    /// The clock of loops started in this task (and the tasks it creates).
    @TaskLocal package static var current: any Clock<Duration> = ContinuousClock()
}
