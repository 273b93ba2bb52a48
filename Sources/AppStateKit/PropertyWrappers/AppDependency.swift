/// Reads a dependency as if it were a stored property.
///
/// ```swift
/// struct ReportService {
///     @AppDependency(\.database) var database
///     func run() async throws { try await database.query("…") }
/// }
/// ```
///
/// Each access resolves the dependency anew, so overrides and scopes apply immediately.
@propertyWrapper
public struct AppDependency<Value: Sendable>: Sendable {
    /// Evaluates the declaring property on an application.
    @usableFromInline let declaration: @Sendable (Application) -> Application.Dependency<Value>

    /// Creates the wrapper for the dependency at `keyPath`.
    ///
    /// A key-path literal (`@AppDependency(\.api)`) selects the initializer that takes a
    /// function instead, which reads faster; this one serves key paths held in variables.
    @_disfavoredOverload
    public init(_ keyPath: KeyPath<Application, Application.Dependency<Value>>) {
        // Safe: key paths are immutable.
        nonisolated(unsafe) let keyPath = keyPath
        self.declaration = { $0[keyPath: keyPath] }
    }

    /// Creates the wrapper from the declaring property as a function.
    ///
    /// This is what `@AppDependency(\.api)` calls: Swift turns the key-path literal into a
    /// function that calls the `api` property directly, so a read costs no key-path
    /// interpretation at run time.
    @_documentation(visibility: private)
    public init(_ declaration: @escaping @Sendable (Application) -> Application.Dependency<Value>) {
        self.declaration = declaration
    }

    /// The dependency's current instance.
    @inlinable
    public var wrappedValue: Value {
        Application.withCurrent { declaration($0).value }
    }
}
