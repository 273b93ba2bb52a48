import AppStateKitCore
import AppStateKitPersistence
extension LocalSyncStore {
    /// How a ``LocalSyncStore`` notices other processes' writes while it has change feeds.
    ///
    /// Either way, one thread per store watches while at least one ``LocalSyncStore/changeFeed()``
    /// feed is open, and each check costs one `stat` of the file (plus a read and decode of the
    /// file when it changed). Reads through ``LocalSyncStore/cachedRecord(forKey:)`` don't wait
    /// for the watcher: they `stat` the file themselves.
    public struct ChangeDetection: Sendable, Hashable, CustomStringConvertible {
        enum Mode: Sendable, Hashable {
            case notifications
            case polling(Duration)
        }

        let mode: Mode

        /// File notifications where the system has them (inotify on Linux, watching the file's
        /// directory), with a check every ``safetyInterval`` in case one was missed; elsewhere,
        /// or when inotify can't be set up (such as the per-user instance limit), polling every
        /// ``fallbackInterval``.
        ///
        /// Other processes' writes reach the feeds within about a millisecond; idle, the
        /// watcher wakes once a second.
        public static let automatic = ChangeDetection(mode: .notifications)

        /// Checks the file's stamp every `interval`, without file notifications.
        ///
        /// Other processes' writes reach the feeds within `interval` (half of it on average);
        /// idle, the watcher wakes `1 / interval` times a second.
        public static func polling(every interval: Duration) -> ChangeDetection {
            ChangeDetection(mode: .polling(max(interval, .milliseconds(1))))
        }

        /// How often ``automatic`` checks the file although no notification arrived: 1 second.
        public static let safetyInterval: Duration = .seconds(1)

        /// How often ``automatic`` polls where it can't use notifications: 50 milliseconds.
        public static let fallbackInterval: Duration = .milliseconds(50)

        /// `automatic` or `polling every <interval>`.
        public var description: String {
            switch mode {
            case .notifications: "automatic"
            case let .polling(interval): "polling every \(interval)"
            }
        }
    }
}
