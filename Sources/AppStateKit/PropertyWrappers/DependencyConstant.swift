/// Reads one member of a dependency, read-only.
///
/// ```swift
/// struct Footer {
///     @DependencyConstant(\.config, \.version) var version
/// }
/// ```
@propertyWrapper
public struct DependencyConstant<Value: Sendable, SliceValue>: Sendable {
    private let dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>> & Sendable
    private let valueKeyPath: KeyPath<Value, SliceValue> & Sendable

    /// Creates the wrapper for the member `valueKeyPath` (read-only or writable) of the
    /// dependency at `dependencyKeyPath`.
    public init(
        _ dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>> & Sendable,
        _ valueKeyPath: KeyPath<Value, SliceValue> & Sendable
    ) {
        self.dependencyKeyPath = dependencyKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The member's current value.
    public var wrappedValue: SliceValue {
        Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath]
    }
}
