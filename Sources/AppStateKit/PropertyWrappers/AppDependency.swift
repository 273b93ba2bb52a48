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
    // Safe: a key path is immutable; its type just doesn't say `Sendable`.
    @usableFromInline nonisolated(unsafe) let keyPath: KeyPath<Application, Application.Dependency<Value>>

    /// Creates the wrapper for the dependency at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.Dependency<Value>>) {
        self.keyPath = keyPath
    }

    /// The dependency's current instance.
    @inlinable
    public var wrappedValue: Value {
        Application.dependency(keyPath)
    }
}
