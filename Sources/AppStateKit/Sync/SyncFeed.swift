import Dispatch

/// One subscriber of a store that ships with AppStateKit: a ``SyncStore/changes()`` feed of
/// records, a ``SyncStore/changeFeed()`` feed of changes, or a ``SyncStore/statusUpdates()``
/// feed of statuses.
enum SyncFeed: Sendable {
    case records(AsyncStream<SyncRecord>.Continuation)
    case changes(AsyncStream<SyncChange>.Continuation)
    case statuses(AsyncStream<SyncStoreStatus>.Continuation)

    /// Sends `change`: as it is to a change feed; to a record feed, the record, or each record
    /// of a replacement (a record feed can't say "replaced"); nothing to a status feed.
    func send(_ change: SyncChange) {
        switch (self, change) {
        case let (.records(feed), .changed(record)): feed.yield(record)
        case let (.records(feed), .replaced(records)): for record in records { feed.yield(record) }
        case let (.changes(feed), change): feed.yield(change)
        case (.statuses, _): break
        }
    }

    /// Sends `status` to a status feed; nothing to the others.
    func send(_ status: SyncStoreStatus) {
        if case let .statuses(feed) = self { feed.yield(status) }
    }

    /// Ends the feed; a status feed first gets ``SyncStoreStatus/stopped``.
    func finish() {
        switch self {
        case let .records(feed): feed.finish()
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
        case let .records(feed): feed.onTermination = { _ in later() }
        case let .changes(feed): feed.onTermination = { _ in later() }
        case let .statuses(feed): feed.onTermination = { _ in later() }
        }
    }
}
