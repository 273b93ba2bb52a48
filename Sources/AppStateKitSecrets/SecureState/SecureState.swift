import AppStateKitCore
import AppStateKitPersistence
/// Reads and writes an ``Application/SecureState`` as if it were a stored property: ``AppState``
/// under AppState's name for it.
///
/// ```swift
/// struct Session {
///     @SecureState(\.apiToken) var token: String?
///     func logIn(with newToken: String) { token = newToken }   // stored when this returns
/// }
/// ```
public typealias SecureState = AppState<String?, Application.SecureState>
