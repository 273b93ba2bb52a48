import AppStateKitCore
import AppStateKitPersistence
/// Reads and writes an ``Application/SyncState`` as if it were a stored property: ``AppState``
/// under AppState's name for it.
///
/// ```swift
/// struct CheckoutHandler {
///     @SyncState(\.flags) var flags
///     func handle() -> String { flags.newCheckout ? "new" : "classic" }
/// }
/// ```
///
/// Reads come from the local cache; setting writes the cache now and the store in the
/// background, like ``Application/SyncState/value``.
public typealias SyncState<Value: Codable & Sendable> = AppState<Value, Application.SyncState<Value>>
