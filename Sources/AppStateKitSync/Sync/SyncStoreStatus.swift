import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// Where a ``SyncStore`` stands: whether the values it serves are loaded, and whether they are
/// current. Delivered by ``SyncStore/statusUpdates()``; ``SyncStore/waitUntilReady(timeout:)``
/// waits for a status that ``isReady``.
public enum SyncStoreStatus: Sendable, Hashable, CustomStringConvertible {
    /// The store has not loaded its values yet: reads return initial values (or this process's
    /// own writes).
    case starting
    /// The store has not loaded its values and cannot reach its backing store since `since`;
    /// `reason` says why (it names no secret). Reads return initial values.
    case unavailable(since: Date, reason: String)
    /// The values are loaded and follow the backing store's changes, since `since`.
    case live(since: Date)
    /// The values are loaded but may be out of date: the backing store can't be reached since
    /// `since` (or the values came from a last-known-good copy); `reason` says why. Reads
    /// return the last values known.
    case stale(since: Date, reason: String)
    /// The store was shut down: it serves no more changes, and writes fail with
    /// ``SyncStoreError/Kind/shutDown``.
    case stopped

    /// Whether the store serves loaded values: ``live(since:)`` or ``stale(since:reason:)``.
    public var isReady: Bool {
        switch self {
        case .live, .stale: true
        case .starting, .unavailable, .stopped: false
        }
    }

    /// Whether the values are loaded and current: ``live(since:)``.
    public var isLive: Bool {
        if case .live = self { true } else { false }
    }

    /// A one-line summary, for logs: `"live since …"`, `"unavailable since …: <reason>"`.
    public var description: String {
        switch self {
        case .starting: "starting"
        case let .unavailable(since, reason): "unavailable since \(since): \(reason)"
        case let .live(since): "live since \(since)"
        case let .stale(since, reason): "stale since \(since): \(reason)"
        case .stopped: "stopped"
        }
    }
}
