/// Reads one member of a dependency, read-only.
///
/// ```swift
/// struct Footer {
///     @DependencyConstant(\.config, \.version) var version
/// }
/// ```
///
/// `KeyPaths` is inferred: ``SendableKeyPaths`` for key paths that are `Sendable` (the wrapper is
/// then `Sendable`), ``NonSendableKeyPaths`` for one to an actor-isolated member, such as a
/// `@MainActor` view model's property.
@propertyWrapper
public struct DependencyConstant<Value: Sendable, SliceValue, KeyPaths> {
    private let dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>>
    private let valueKeyPath: KeyPath<Value, SliceValue>

    /// Creates the wrapper for the member `valueKeyPath` (read-only or writable) of the
    /// dependency at `dependencyKeyPath`.
    public init(
        _ dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>> & Sendable,
        _ valueKeyPath: KeyPath<Value, SliceValue> & Sendable
    ) where KeyPaths == SendableKeyPaths {
        self.dependencyKeyPath = dependencyKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// Creates the wrapper from key paths that aren't `Sendable`, such as one to a member of a
    /// `@MainActor` view model; the wrapper stays in the isolation domain that made it.
    // Generic only so that overload resolution prefers the initializer above whenever both key
    // paths are `Sendable` (a non-generic candidate wins a tie).
    public init<DependencyKeyPath: KeyPath<Application, Application.Dependency<Value>>>(
        _ dependencyKeyPath: DependencyKeyPath,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) where KeyPaths == NonSendableKeyPaths {
        self.dependencyKeyPath = dependencyKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The member's current value.
    public var wrappedValue: SliceValue {
        Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath]
    }
}

// Safe: only the initializer taking `Sendable` key paths makes a
// `DependencyConstant<…, SendableKeyPaths>`.
extension DependencyConstant: @unchecked Sendable where KeyPaths == SendableKeyPaths {}
