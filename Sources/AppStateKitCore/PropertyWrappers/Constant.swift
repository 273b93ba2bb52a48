/// Reads one member of a state's value, read-only.
///
/// ```swift
/// struct Header {
///     @Constant(\.settings, \.appName) var appName
/// }
/// ```
///
/// `KeyPaths` is inferred: ``SendableKeyPaths`` for key paths that are `Sendable` (the wrapper is
/// then `Sendable`), ``NonSendableKeyPaths`` for one to an actor-isolated member.
@propertyWrapper
public struct Constant<SlicedState: MutableApplicationState, Value, SliceValue, KeyPaths>
where SlicedState.Value == Value {
    private let stateKeyPath: KeyPath<Application, SlicedState>
    private let valueKeyPath: KeyPath<Value, SliceValue>

    /// Creates the wrapper for the member `valueKeyPath` (read-only or writable) of the state at
    /// `stateKeyPath`.
    public init(
        _ stateKeyPath: KeyPath<Application, SlicedState> & Sendable,
        _ valueKeyPath: KeyPath<Value, SliceValue> & Sendable
    ) where KeyPaths == SendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// Creates the wrapper from key paths that aren't `Sendable`, such as one to a member of a
    /// `@MainActor` type; the wrapper stays in the isolation domain that made it.
    // Generic only so that overload resolution prefers the initializer above whenever both key
    // paths are `Sendable` (a non-generic candidate wins a tie).
    public init<StateKeyPath: KeyPath<Application, SlicedState>>(
        _ stateKeyPath: StateKeyPath,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) where KeyPaths == NonSendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The member's current value.
    public var wrappedValue: SliceValue {
        Application.state(stateKeyPath).value[keyPath: valueKeyPath]
    }
}

// Safe: only the initializer taking `Sendable` key paths makes a `Constant<…, SendableKeyPaths>`.
extension Constant: @unchecked Sendable where KeyPaths == SendableKeyPaths {}
