/// Reads one member of a dependency, read-only.
///
/// ```swift
/// struct Footer {
///     @DependencyConstant(\.config, \.version) var version
/// }
/// ```
@propertyWrapper
public struct DependencyConstant<Value: Sendable, SliceValue>: @unchecked Sendable {
    // Safe: the stored properties are immutable key paths.
    private let dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>>
    private let valueKeyPath: KeyPath<Value, SliceValue>

    /// Creates the wrapper for the member `valueKeyPath` (read-only or writable) of the
    /// dependency at `dependencyKeyPath`.
    public init(
        _ dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>>,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) {
        self.dependencyKeyPath = dependencyKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The member's current value.
    public var wrappedValue: SliceValue {
        Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath]
    }
}
