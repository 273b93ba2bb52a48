/// Reads and writes a state, stored state or file state as if it were a stored property.
///
/// ```swift
/// struct Greeter {
///     @AppState(\.username) var username
///     func greet() -> String { "Hello, \(username)" }
///     func rename(_ name: String) { username = name }   // writes the shared entry
/// }
/// ```
///
/// Each access resolves the entry anew, so the wrapper follows promotions, isolation scopes and
/// resets. Usable in structs, classes and actors, from any thread.
@propertyWrapper
public struct AppState<Value, ApplicationState: MutableApplicationState>: @unchecked Sendable
where ApplicationState.Value == Value {
    // Safe: the only stored property is an immutable key path.
    @usableFromInline let keyPath: KeyPath<Application, ApplicationState>

    /// Creates the wrapper for the entry at `keyPath`.
    public init(_ keyPath: KeyPath<Application, ApplicationState>) {
        self.keyPath = keyPath
    }

    /// The entry's current value; setting it writes the shared entry.
    @inlinable
    public var wrappedValue: Value {
        get { Application.state(keyPath).value }
        nonmutating set {
            var state = Application.state(keyPath)
            state.value = newValue
        }
    }
}
