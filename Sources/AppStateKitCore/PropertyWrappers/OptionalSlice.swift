/// Reads and writes one member of an optional state's value: `nil` while the state is `nil`.
///
/// ```swift
/// struct Profile {
///     @OptionalSlice(\.session, \.displayName) var displayName   // String member
///     @OptionalSlice(\.session, \.nickname) var nickname         // String? member
/// }
/// ```
///
/// For a non-optional member, assigning `nil` leaves it unchanged; for an optional member it
/// clears it. Writes while the state is `nil` do nothing.
///
/// `KeyPaths` is inferred: ``SendableKeyPaths`` for key paths that are `Sendable` (the wrapper is
/// then `Sendable`), ``NonSendableKeyPaths`` for one to an actor-isolated member.
@propertyWrapper
public struct OptionalSlice<SlicedState: MutableApplicationState, Value, SliceValue, KeyPaths>
where SlicedState.Value == Value? {
    private let stateKeyPath: KeyPath<Application, SlicedState>
    private let member: OptionalMember<Value, SliceValue>

    /// Creates the wrapper for a non-optional member of an optional state.
    public init(
        _ stateKeyPath: KeyPath<Application, SlicedState> & Sendable,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue> & Sendable
    ) where KeyPaths == SendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.member = .value(valueKeyPath)
    }

    /// Creates the wrapper for an optional member of an optional state.
    public init(
        _ stateKeyPath: KeyPath<Application, SlicedState> & Sendable,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue?> & Sendable
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
        _ valueKeyPath: WritableKeyPath<Value, SliceValue>
    ) where KeyPaths == NonSendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.member = .value(valueKeyPath)
    }

    /// Creates the wrapper for an optional member from key paths that aren't `Sendable`; the
    /// wrapper stays in the isolation domain that made it.
    public init<StateKeyPath: KeyPath<Application, SlicedState>>(
        _ stateKeyPath: StateKeyPath,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue?>
    ) where KeyPaths == NonSendableKeyPaths {
        self.stateKeyPath = stateKeyPath
        self.member = .optional(valueKeyPath)
    }

    /// The member's value, or `nil` while the state (or an optional member) is `nil`.
    ///
    /// A mutation in place (`count? += 1`) is one atomic step on the state.
    public var wrappedValue: SliceValue? {
        get { member.read(from: Application.state(stateKeyPath).value) }
        nonmutating set {
            var state = Application.state(stateKeyPath)
            state.modify { member.write(newValue, into: &$0) }
        }
        nonmutating _modify {
            var state = Application.state(stateKeyPath)
            yield &state.value[sliceMember: member]
        }
    }
}

// Safe: only the initializers taking `Sendable` key paths make an
// `OptionalSlice<…, SendableKeyPaths>`.
extension OptionalSlice: @unchecked Sendable where KeyPaths == SendableKeyPaths {}
