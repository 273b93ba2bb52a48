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
public struct AppState<Value, ApplicationState: MutableApplicationState>: Sendable
where ApplicationState.Value == Value {
    /// The declaring property, evaluated on the current application at each access.
    @usableFromInline let declaration: WrappedDeclaration<ApplicationState>

    /// Creates the wrapper for the entry at `keyPath`.
    ///
    /// A key-path literal (`@AppState(\.username)`) selects the initializer that takes a
    /// function instead, which reads faster; this one serves key paths held in variables.
    @_disfavoredOverload
    public init(_ keyPath: KeyPath<Application, ApplicationState>) {
        self.declaration = WrappedDeclaration(keyPath)
    }

    /// Creates the wrapper from the declaring property as a function.
    ///
    /// This is what `@AppState(\.username)` calls: Swift turns the key-path literal into a
    /// function that calls the `username` property directly, so an access costs no key-path
    /// interpretation at run time.
    @_documentation(visibility: private)
    public init(_ declaration: @escaping @Sendable (Application) -> ApplicationState) {
        self.declaration = WrappedDeclaration(declaration)
    }

    /// The entry's current value; setting it writes the shared entry.
    ///
    /// A mutation in place (`count += 1`, `items.append(item)`) is one atomic step: see
    /// ``Application/State/value``.
    @inlinable
    public var wrappedValue: Value {
        get { declaration.value }
        nonmutating set { declaration.value = newValue }
        nonmutating _modify { yield &declaration.value }
    }
}
