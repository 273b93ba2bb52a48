#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation

extension PostgresSyncStore {
    /// Where a ``PostgresSyncStore`` stood with its database, in this store's own terms: a view
    /// of the store's state that ``currentStatus`` and ``statusUpdates()`` now give as the one
    /// status type of every store, ``AppStateKit/SyncStoreStatus``.
    ///
    /// How the cases map: `starting` is ``AppStateKit/SyncStoreStatus/starting``; `connected` is
    /// `live`; `disconnected` is `stale` once values were loaded and `unavailable` before;
    /// `servingLastKnownGood` is `stale` since the copy was saved, its reason naming the copy;
    /// `stopped` is `stopped`.
    @available(*, deprecated, message: "use currentStatus or statusUpdates(), which give SyncStoreStatus")
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        /// ``PostgresSyncStore/run()`` has not loaded values yet.
        case starting
        /// Caught up with the table since `since`.
        case connected(since: Date)
        /// The connection was lost at `since`; `reason` describes the last failure.
        case disconnected(since: Date, reason: String)
        /// PostgreSQL could not be reached at boot, so the store serves the
        /// ``Configuration/lastKnownGoodFile`` copy, saved at `savedAt`, since `since`.
        case servingLastKnownGood(savedAt: Date, since: Date, reason: String)
        /// ``PostgresSyncStore/run()`` returned.
        case stopped

        init(_ state: ConnectionState) {
            switch state {
            case .starting: self = .starting
            case .connected(let since): self = .connected(since: since)
            case .disconnected(let since, let reason): self = .disconnected(since: since, reason: reason)
            case .servingLastKnownGood(let savedAt, let since, let reason): self = .servingLastKnownGood(savedAt: savedAt, since: since, reason: reason)
            case .stopped: self = .stopped
            }
        }

        /// A one-line summary, for logs.
        public var description: String { ConnectionState(self).description }
    }

    /// Where the store stands with its database (internal: ``currentStatus`` is the public view).
    enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
        /// ``PostgresSyncStore/run()`` has not loaded values yet: the cache is empty unless this
        /// instance wrote; writes wait for the table, then are attempted.
        case starting
        /// Caught up with the table since `since`: listening (the cache lags other instances by
        /// one notification) or, with ``Configuration/listensForNotifications`` off, polling
        /// (it lags by at most one ``Configuration/reconcileInterval``).
        case connected(since: Date)
        /// The connection was lost at `since`: the cache holds what was known then, writes fail
        /// at once with `unavailable`, and ``PostgresSyncStore/run()`` is reconnecting.
        /// `reason` describes the last failure.
        case disconnected(since: Date, reason: String)
        /// PostgreSQL could not be reached at boot, so the store serves the
        /// ``Configuration/lastKnownGoodFile`` copy, saved at `savedAt`, since `since`; writes
        /// fail with `unavailable` and ``PostgresSyncStore/run()`` keeps trying. `reason`
        /// describes the last failure.
        case servingLastKnownGood(savedAt: Date, since: Date, reason: String)
        /// ``PostgresSyncStore/run()`` returned: writes fail with `shutDown`, feeds have ended.
        case stopped

        @available(*, deprecated, message: "maps the deprecated Status view")
        init(_ status: Status) {
            switch status {
            case .starting: self = .starting
            case .connected(let since): self = .connected(since: since)
            case .disconnected(let since, let reason): self = .disconnected(since: since, reason: reason)
            case .servingLastKnownGood(let savedAt, let since, let reason): self = .servingLastKnownGood(savedAt: savedAt, since: since, reason: reason)
            case .stopped: self = .stopped
            }
        }

        var description: String {
            switch self {
            case .starting: "starting"
            case .connected(let since): "connected since \(since)"
            case .disconnected(let since, let reason): "disconnected since \(since): \(reason)"
            case .servingLastKnownGood(let savedAt, let since, let reason):
                "serving the last-known-good copy saved at \(savedAt) since \(since): \(reason)"
            case .stopped: "stopped"
            }
        }

        /// The store-independent status: `connected` is live; `disconnected` is stale once
        /// values were loaded (`hasValues`), unavailable before; the last-known-good copy is
        /// stale since it was saved.
        func storeStatus(hasValues: Bool) -> SyncStoreStatus {
            switch self {
            case .starting: .starting
            case .connected(let since): .live(since: since)
            case .disconnected(let since, let reason):
                hasValues ? .stale(since: since, reason: reason) : .unavailable(since: since, reason: reason)
            case .servingLastKnownGood(let savedAt, let since, let reason):
                .stale(since: savedAt, reason: "serving the last-known-good copy since \(since) (PostgreSQL can't be reached: \(reason))")
            case .stopped: .stopped
            }
        }
    }

    /// Where the store stands now, as every ``AppStateKit/SyncStore`` says it (the first element
    /// of ``statusUpdates()``): `starting`; `live` while caught up with the table; `stale`
    /// while disconnected after values were loaded (the reason gives the last failure) or while
    /// serving the ``Configuration/lastKnownGoodFile`` copy (since it was saved; the reason says
    /// so); `unavailable` while disconnected before any values were loaded; `stopped` once
    /// ``run()`` returned.
    public var currentStatus: SyncStoreStatus {
        connection.status.storeStatus(hasValues: valuesLoaded.isOpen)
    }

    /// The store's status now (``currentStatus``), then every change of it (see
    /// ``AppStateKit/SyncStoreStatus``): `starting`, `live` while caught up with the table,
    /// `stale` while disconnected after values were loaded or while serving the
    /// ``Configuration/lastKnownGoodFile`` copy, `unavailable` while disconnected before any
    /// values were loaded, and `stopped` when ``run()`` returned, which ends the stream.
    /// A slow consumer gets the newest statuses (at most 16 are buffered).
    public func statusUpdates() -> AsyncStream<SyncStoreStatus> {
        connection.makeFeed { [valuesLoaded] status in
            status.storeStatus(hasValues: valuesLoaded.isOpen)
        }
    }
}

/// The store's ``PostgresSyncStore/ConnectionState`` behind a lock, and its feeds.
final class ConnectionStatusBox: Sendable {
    private struct State {
        var status = PostgresSyncStore.ConnectionState.starting
        var feeds: [Int: @Sendable (PostgresSyncStore.ConnectionState) -> Void] = [:]
        var finishers: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
    }

    private let box = LockedBox(State())
    /// Held while a status is delivered (never with `box`'s lock), so feeds get the statuses in
    /// the order they were set and nothing is delivered after `stopped`. A feed's termination
    /// handler takes only `box`'s lock, so a consumer cancelled during a delivery can't deadlock it.
    private let delivering = Lock()

    var status: PostgresSyncStore.ConnectionState { box.withLock { $0.status } }

    /// Sets the status unless the store stopped; returns the previous one.
    @discardableResult
    func set(_ status: PostgresSyncStore.ConnectionState) -> PostgresSyncStore.ConnectionState {
        delivering.lock()
        defer { delivering.unlock() }
        let (previous, feeds) = box.withLock { state -> (PostgresSyncStore.ConnectionState, [@Sendable (PostgresSyncStore.ConnectionState) -> Void]) in
            let previous = state.status
            if case .stopped = previous { return (previous, []) }
            state.status = status
            return (previous, previous == status ? [] : Array(state.feeds.values))
        }
        for feed in feeds { feed(status) }
        return previous
    }

    /// Marks the store stopped for good and ends every feed.
    func stop() {
        delivering.lock()
        defer { delivering.unlock() }
        let feeds = box.withLock { state -> [(@Sendable (PostgresSyncStore.ConnectionState) -> Void, @Sendable () -> Void)] in
            state.status = .stopped
            defer {
                state.feeds.removeAll()
                state.finishers.removeAll()
            }
            return state.feeds.compactMap { id, feed in state.finishers[id].map { (feed, $0) } }
        }
        for (feed, finish) in feeds {
            feed(.stopped)
            finish()
        }
    }

    /// A feed of the statuses, each passed through `map`; it starts with the current status.
    func makeFeed<Element: Sendable>(_ map: @escaping @Sendable (PostgresSyncStore.ConnectionState) -> Element) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(16))
        let id = box.withLock { state -> Int? in
            // Inside the lock, so no later status overtakes the first.
            continuation.yield(map(state.status))
            if case .stopped = state.status { return nil }
            defer { state.nextID += 1 }
            state.feeds[state.nextID] = { continuation.yield(map($0)) }
            state.finishers[state.nextID] = { continuation.finish() }
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.box.withLock { state in
                state.feeds[id] = nil
                state.finishers[id] = nil
            }
        }
        return stream
    }
}
#endif
