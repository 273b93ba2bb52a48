/// Reads and writes a ``Application/StoredState`` as if it were a stored property.
///
/// ```swift
/// struct Server {
///     @StoredState(\.port) var port
///     func configure() { port = 9090 }   // persisted when this returns
/// }
/// ```
@propertyWrapper
public struct StoredState<Value: Codable & Sendable>: Sendable {
    /// The declaring property, evaluated on the current application at each access.
    private let declaration: WrappedDeclaration<Application.StoredState<Value>>

    /// Creates the wrapper for the stored state at `keyPath`.
    ///
    /// A key-path literal (`@StoredState(\.port)`) selects the initializer that takes a
    /// function instead, which reads faster; this one serves key paths held in variables.
    @_disfavoredOverload
    public init(_ keyPath: KeyPath<Application, Application.StoredState<Value>>) {
        self.declaration = WrappedDeclaration(keyPath)
    }

    /// Creates the wrapper from the declaring property as a function.
    ///
    /// This is what `@StoredState(\.port)` calls: Swift turns the key-path literal into a function
    /// that calls the `port` property directly.
    @_documentation(visibility: private)
    public init(_ declaration: @escaping @Sendable (Application) -> Application.StoredState<Value>) {
        self.declaration = WrappedDeclaration(declaration)
    }

    /// The stored value; setting it persists it.
    ///
    /// A mutation in place (`count += 1`, `items.append(item)`) reads, mutates and writes as one
    /// step in this process: see ``Application/StoredState/value``.
    public var wrappedValue: Value {
        get { declaration.value }
        nonmutating set { declaration.value = newValue }
        nonmutating _modify { yield &declaration.value }
    }
}
