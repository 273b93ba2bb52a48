/// Reads and writes one member of a dependency as if it were a stored property.
///
/// ```swift
/// struct Tuning {
///     @DependencySlice(\.config, \.timeout) var timeout
///     func relax() { timeout *= 2 }   // writes to the current instance
/// }
/// ```
///
/// `KeyPaths` is inferred: ``SendableKeyPaths`` for key paths that are `Sendable` (the wrapper is
/// then `Sendable`), ``NonSendableKeyPaths`` for one to an actor-isolated member, such as a
/// `@MainActor` view model's property.
@propertyWrapper
public struct DependencySlice<Value: Sendable, SliceValue, KeyPaths> {
    private let dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>>
    private let valueKeyPath: WritableKeyPath<Value, SliceValue>

    /// Creates the wrapper for the member `valueKeyPath` of the dependency at `dependencyKeyPath`.
    public init(
        _ dependencyKeyPath: KeyPath<Application, Application.Dependency<Value>> & Sendable,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue> & Sendable
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
        _ valueKeyPath: WritableKeyPath<Value, SliceValue>
    ) where KeyPaths == NonSendableKeyPaths {
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

// Safe: only the initializer taking `Sendable` key paths makes a
// `DependencySlice<…, SendableKeyPaths>`.
extension DependencySlice: @unchecked Sendable where KeyPaths == SendableKeyPaths {}
