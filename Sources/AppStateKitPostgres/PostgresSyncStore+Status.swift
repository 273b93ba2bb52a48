#if PostgreSQL
import Foundation
import NIOConcurrencyHelpers

extension PostgresSyncStore {
    /// Where a ``PostgresSyncStore`` stands with its database.
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        /// ``PostgresSyncStore/run()`` has not connected yet: the cache is empty unless this
        /// instance wrote; writes are attempted.
        case starting
        /// Listening and caught up: the cache lags other instances by one notification.
        case connected(since: Date)
        /// The connection was lost at `since`: the cache holds what was known then (at most
        /// that old), writes fail at once with `unavailable`, and ``PostgresSyncStore/run()`` is
        /// reconnecting. `reason` describes the last failure.
        case disconnected(since: Date, reason: String)
        /// ``PostgresSyncStore/run()`` returned: writes fail with `shutDown`, feeds have ended.
        case stopped

        /// A one-line summary, for logs.
        public var description: String {
            switch self {
            case .starting: "starting"
            case .connected(let since): "connected since \(since)"
            case .disconnected(let since, let reason): "disconnected since \(since): \(reason)"
            case .stopped: "stopped"
            }
        }
    }
}

/// The store's ``PostgresSyncStore/Status`` behind a lock.
final class ConnectionStatusBox: Sendable {
    private let box = NIOLockedValueBox(PostgresSyncStore.Status.starting)

    var status: PostgresSyncStore.Status { box.withLockedValue { $0 } }

    /// Sets the status unless the store stopped; returns the previous one.
    @discardableResult
    func set(_ status: PostgresSyncStore.Status) -> PostgresSyncStore.Status {
        box.withLockedValue { current in
            let previous = current
            if case .stopped = current { return previous }
            current = status
            return previous
        }
    }

    /// Marks the store stopped for good.
    func stop() { box.withLockedValue { $0 = .stopped } }
}
#endif
