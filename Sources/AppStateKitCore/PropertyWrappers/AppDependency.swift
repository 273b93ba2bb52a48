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
    /// Evaluates the declaring property on an application (see ``init(_:)``).
    // Safe: the closure only applies an immutable key path; its type just doesn't say `Sendable`.
    @usableFromInline nonisolated(unsafe) let declaration: (Application) -> Application.Dependency<Value>

    /// Creates the wrapper for the dependency at `keyPath`.
    @inlinable
    public init(_ keyPath: KeyPath<Application, Application.Dependency<Value>>) {
        // Inlined where a key-path literal is written, so the optimiser turns the closure into a
        // direct call of the declaring property (a stored key path is interpreted on every read).
        declaration = { $0[keyPath: keyPath] }
    }

    /// The dependency's current instance.
    @inlinable
    public var wrappedValue: Value {
        Application.withCurrent { declaration($0).value }
    }
}
