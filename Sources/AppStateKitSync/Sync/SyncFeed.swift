import AppStateKitCore
import AppStateKitPersistence
import Dispatch

/// One subscriber of a store that ships with AppStateKit: a ``SyncStore/changeFeed()`` feed of
/// changes (bounded: see ``SyncChangeBuffer``) or a ``SyncStore/statusUpdates()`` feed of
/// statuses (the newest ``statusBuffer`` kept).
enum SyncFeed: Sendable {
    case changes(SyncChangeBuffer)
    case statuses(AsyncStream<SyncStoreStatus>.Continuation)

    /// The statuses a status feed keeps for a slow consumer: the newest ones, so the last
    /// (``SyncStoreStatus/stopped`` at the end) always arrives.
    static let statusBuffer = 16

    /// Sends `change` to a change feed; nothing to a status feed.
    func send(_ change: SyncChange) {
        switch self {
        case let .changes(feed): feed.push(change)
        case .statuses: break
        }
    }

    /// Sends `status` to a status feed; nothing to the others.
    func send(_ status: SyncStoreStatus) {
        if case let .statuses(feed) = self { feed.yield(status) }
    }

    /// Ends the feed; a status feed first gets ``SyncStoreStatus/stopped``.
    func finish() {
        switch self {
        case let .changes(feed): feed.finish()
        case let .statuses(feed):
            feed.yield(.stopped)
            feed.finish()
        }
    }

    /// Calls `handler` soon after the feed's consumer stops or the feed finishes, on another
    /// thread.
    ///
    /// Never on the thread that ends the feed: the runtime calls a termination handler while it
    /// holds the consuming task's lock (a cancellation), and a ``LocalSyncStore`` delivers to its
    /// feeds under its own lock, which a delivery's `yield` holds while it takes that task's lock
    /// to resume it. A handler that took the store's lock right there deadlocked both threads
    /// (a SyncState entry's release cancelling its feed while the store's watcher delivered).
    func onTermination(_ handler: @escaping @Sendable () -> Void) {
        let later: @Sendable () -> Void = { DispatchQueue.global().async(execute: handler) }
        switch self {
        case let .changes(feed): feed.onEnd(later)
        case let .statuses(feed): feed.onTermination = { _ in later() }
        }
    }
}
