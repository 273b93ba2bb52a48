import AppStateKitCore
/// Reads and writes an ``Application/StoredState`` as if it were a stored property: ``AppState``
/// under AppState's name for it.
///
/// ```swift
/// struct Server {
///     @StoredState(\.port) var port
///     func configure() { port = 9090 }   // persisted when this returns
/// }
/// ```
public typealias StoredState<Value: Codable & Sendable> = AppState<Value, Application.StoredState<Value>>
