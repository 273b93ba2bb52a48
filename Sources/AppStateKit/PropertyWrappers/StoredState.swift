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
    /// Evaluates the declaring property on an application.
    private let declaration: @Sendable (Application) -> Application.StoredState<Value>

    /// Creates the wrapper for the stored state at `keyPath`.
    ///
    /// A key-path literal (`@StoredState(\.port)`) selects the initializer that takes a
    /// function instead, which reads faster; this one serves key paths held in variables.
    @_disfavoredOverload
    public init(_ keyPath: KeyPath<Application, Application.StoredState<Value>>) {
        // Safe: key paths are immutable.
        nonisolated(unsafe) let keyPath = keyPath
        self.declaration = { $0[keyPath: keyPath] }
    }

    /// Creates the wrapper from the declaring property as a function.
    ///
    /// This is what `@StoredState(\.port)` calls: Swift turns the key-path literal into a function
    /// that calls the `port` property directly.
    public init(_ declaration: @escaping @Sendable (Application) -> Application.StoredState<Value>) {
        self.declaration = declaration
    }

    /// The stored value; setting it persists it.
    ///
    /// A mutation in place (`count += 1`, `items.append(item)`) reads, mutates and writes as one
    /// step in this process: see ``Application/StoredState/value``.
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
