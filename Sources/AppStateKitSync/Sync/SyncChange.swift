import AppStateKitCore
import AppStateKitPersistence
/// One element of a ``SyncStore``'s change feed (``SyncStore/changeFeed()``).
///
/// Most elements are ``changed(_:)``: one committed record, which a consumer takes only when
/// its version is higher than the one it holds. ``replaced(_:)`` is how a store says that the
/// versions a consumer holds can no longer be compared with the store's: its backing data was
/// replaced (the embedded store's file was deleted or replaced, a database was restored or
/// truncated, a reconciliation found a difference). The records it carries are the store's
/// complete contents at that moment (tombstones may be left out), and they are authoritative:
///
/// - a key missing from it has no record any more (reads return the initial value);
/// - a record in it replaces the consumer's record of its key *whatever the two versions*, so a
///   lower version than the cached one still wins.
///
/// Versions compare normally again from the replacement on: a ``changed(_:)`` after it is taken
/// when its version is higher than the replacement's record of the key.
public enum SyncChange: Sendable, Hashable {
    /// A record committed to the store (by this process or another), delivered after the
    /// commit. Compare versions: duplicates and records older than one already held can arrive.
    case changed(SyncRecord)
    /// Every record the store holds now (for a namespaced store: every record of its namespace),
    /// to be taken as authoritative: see ``SyncChange``.
    case replaced([SyncRecord])
}
