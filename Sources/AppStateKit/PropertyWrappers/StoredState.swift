/// Reads and writes a ``Application/StoredState`` as if it were a stored property.
///
/// ```swift
/// struct Server {
///     @StoredState(\.port) var port
///     func configure() { port = 9090 }   // persisted when this returns
/// }
/// ```
@propertyWrapper
public struct StoredState<Value: Codable & Sendable>: @unchecked Sendable {
    // Safe: the only stored property is an immutable key path.
    private let keyPath: KeyPath<Application, Application.StoredState<Value>>

    /// Creates the wrapper for the stored state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.StoredState<Value>>) {
        self.keyPath = keyPath
    }

    /// The stored value; setting it persists it.
    public var wrappedValue: Value {
        get { Application.storedState(keyPath).value }
        nonmutating set {
            var state = Application.storedState(keyPath)
            state.value = newValue
        }
    }
}
