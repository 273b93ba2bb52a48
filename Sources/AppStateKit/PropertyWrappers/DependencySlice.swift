/// Reads and writes one member of a dependency as if it were a stored property.
///
/// ```swift
/// struct Tuning {
///     @DependencySlice(\.config, \.timeout) var timeout
///     func relax() { timeout *= 2 }   // writes to the current instance
/// }
/// ```
@propertyWrapper
public struct DependencySlice<Value: Sendable, SliceValue>: Sendable {
    private let dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>> & Sendable
    private let valueKeyPath: WritableKeyPath<Value, SliceValue> & Sendable

    /// Creates the wrapper for the member `valueKeyPath` of the dependency at `dependencyKeyPath`.
    public init(
        _ dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>> & Sendable,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue> & Sendable
    ) {
        self.dependencyKeyPath = dependencyKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The member's current value; setting it writes to the current instance.
    public var wrappedValue: SliceValue {
        get { Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath] }
        nonmutating set {
            var slice = Application.dependencySlice(dependencyKeyPath, valueKeyPath)
            slice.value = newValue
        }
    }
}
