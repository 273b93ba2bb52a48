/// Reads one member of an optional state's value, read-only: `nil` while the state is `nil`.
///
/// ```swift
/// struct Badge {
///     @OptionalConstant(\.session, \.userID) var userID
/// }
/// ```
///
/// `KeyPaths` is inferred: ``SendableKeyPaths`` for key paths that are `Sendable` (the wrapper is
/// then `Sendable`), ``NonSendableKeyPaths`` for one to an actor-isolated member.
@propertyWrapper
public struct OptionalConstant<SlicedState: MutableApplicationState, Value, SliceValue, KeyPaths>
where SlicedState.Value == Value? {
    private let stateKeyPath: KeyPath<Application, SlicedState>
    private let member: OptionalMember<Value, SliceValue>

    /// Creates the wrapper for a non-optional member of an optional state.
    public init(
        _ stateKeyPath: KeyPath<Application, SlicedState> & Sendable,
        _ valueKeyPath: KeyPath<Value, SliceValue> & Sendable
    ) where KeyPaths == SendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.member = .value(valueKeyPath)
    }

    /// Creates the wrapper for an optional member of an optional state.
    public init(
        _ stateKeyPath: KeyPath<Application, SlicedState> & Sendable,
        _ valueKeyPath: KeyPath<Value, SliceValue?> & Sendable
    ) where KeyPaths == SendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.member = .optional(valueKeyPath)
    }

    /// Creates the wrapper for a non-optional member from key paths that aren't `Sendable`, such
    /// as one to a member of a `@MainActor` type; the wrapper stays in the isolation domain that
    /// made it.
    // Generic only so that overload resolution prefers the `Sendable` initializers whenever both
    // key paths are `Sendable` (a non-generic candidate wins a tie).
    public init<StateKeyPath: KeyPath<Application, SlicedState>>(
        _ stateKeyPath: StateKeyPath,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) where KeyPaths == NonSendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.member = .value(valueKeyPath)
    }

    /// Creates the wrapper for an optional member from key paths that aren't `Sendable`; the
    /// wrapper stays in the isolation domain that made it.
    public init<StateKeyPath: KeyPath<Application, SlicedState>>(
        _ stateKeyPath: StateKeyPath,
        _ valueKeyPath: KeyPath<Value, SliceValue?>
    ) where KeyPaths == NonSendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.member = .optional(valueKeyPath)
    }

    /// The member's value, or `nil` while the state (or an optional member) is `nil`.
    public var wrappedValue: SliceValue? {
        member.read(from: Application.state(stateKeyPath).value)
    }
}

// Safe: only the initializers taking `Sendable` key paths make an
// `OptionalConstant<…, SendableKeyPaths>`.
extension OptionalConstant: @unchecked Sendable where KeyPaths == SendableKeyPaths {}
