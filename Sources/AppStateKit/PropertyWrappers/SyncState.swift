/// Reads and writes an ``Application/SyncState`` as if it were a stored property.
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
@propertyWrapper
public struct SyncState<Value: Codable & Sendable>: Sendable {
    /// The declaring property, evaluated on the current application at each access.
    private let declaration: WrappedDeclaration<Application.SyncState<Value>>

    /// Creates the wrapper for the sync state at `keyPath`.
    ///
    /// A key-path literal (`@SyncState(\.flags)`) selects the initializer that takes a function
    /// instead, which reads faster; this one serves key paths held in variables.
    @_disfavoredOverload
    public init(_ keyPath: KeyPath<Application, Application.SyncState<Value>>) {
        self.declaration = WrappedDeclaration(keyPath)
    }

    /// Creates the wrapper from the declaring property as a function.
    ///
    /// This is what `@SyncState(\.flags)` calls: Swift turns the key-path literal into a
    /// function that calls the `flags` property directly.
    @_documentation(visibility: private)
    public init(_ declaration: @escaping @Sendable (Application) -> Application.SyncState<Value>) {
        self.declaration = WrappedDeclaration(declaration)
    }

    /// The cached value; setting it writes the cache now and the store in the background.
    ///
    /// A mutation in place (`count += 1`) reads, mutates and writes as one step within this
    /// process: see ``Application/SyncState/value``.
    public var wrappedValue: Value {
        get { declaration.value }
        nonmutating set { declaration.value = newValue }
        nonmutating _modify { yield &declaration.value }
    }
}
