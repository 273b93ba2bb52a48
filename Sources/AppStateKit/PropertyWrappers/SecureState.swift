/// Reads and writes a ``Application/SecureState`` as if it were a stored property, as AppState's
/// `@SecureState` does.
///
/// ```swift
/// struct Session {
///     @SecureState(\.apiToken) var token: String?
///     func logIn(with newToken: String) { token = newToken }   // stored when this returns
/// }
/// ```
@propertyWrapper
public struct SecureState: Sendable {
    /// The declaring property, evaluated on the current application at each access.
    private let declaration: WrappedDeclaration<Application.SecureState>

    /// Creates the wrapper for the secure state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.SecureState>) {
        self.declaration = WrappedDeclaration(keyPath)
    }

    /// The secret, or the initial value when no source has it; setting stores it (`nil`
    /// removes it). See ``Application/SecureState/value``.
    public var wrappedValue: String? {
        get { declaration.value }
        nonmutating set { declaration.value = newValue }
    }
}
