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
    /// Evaluates the declaring property on an application.
    private let declaration: @Sendable (Application) -> Application.SyncState<Value>

    /// Creates the wrapper for the sync state at `keyPath`.
    ///
    /// A key-path literal (`@SyncState(\.flags)`) selects the initializer that takes a function
    /// instead, which reads faster; this one serves key paths held in variables.
    @_disfavoredOverload
    public init(_ keyPath: KeyPath<Application, Application.SyncState<Value>>) {
        // Safe: key paths are immutable.
        nonisolated(unsafe) let keyPath = keyPath
        self.declaration = { $0[keyPath: keyPath] }
    }

    /// Creates the wrapper from the declaring property as a function.
    ///
    /// This is what `@SyncState(\.flags)` calls: Swift turns the key-path literal into a
    /// function that calls the `flags` property directly.
    public init(_ declaration: @escaping @Sendable (Application) -> Application.SyncState<Value>) {
        self.declaration = declaration
    }

    /// The cached value; setting it writes the cache now and the store in the background.
    ///
    /// A mutation in place (`count += 1`) reads, mutates and writes as one step within this
    /// process: see ``Application/SyncState/value``.
    public var wrappedValue: Value {
        get { Application.withCurrent { declaration($0) }.value }
        nonmutating set {
            var state = Application.withCurrent { declaration($0) }
            state.value = newValue
        }
        nonmutating _modify {
            var state = Application.withCurrent { declaration($0) }
            yield &state.value
        }
    }
}
