/// Reads one member of an optional state's value, read-only: `nil` while the state is `nil`.
///
/// ```swift
/// struct Badge {
///     @OptionalConstant(\.session, \.userID) var userID
/// }
/// ```
@propertyWrapper
public struct OptionalConstant<SlicedState: MutableApplicationState, Value, SliceValue>: Sendable
where SlicedState.Value == Value? {
    private let stateKeyPath: KeyPath<Application, SlicedState> & Sendable
    private let member: OptionalMember<Value, SliceValue>

    /// Creates the wrapper for a non-optional member of an optional state.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState> & Sendable, _ valueKeyPath: KeyPath<Value, SliceValue> & Sendable) {
        self.stateKeyPath = stateKeyPath
        self.member = .value(valueKeyPath)
    }

    /// Creates the wrapper for an optional member of an optional state.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState> & Sendable, _ valueKeyPath: KeyPath<Value, SliceValue?> & Sendable) {
        self.stateKeyPath = stateKeyPath
        self.member = .optional(valueKeyPath)
    }

    /// The member's value, or `nil` while the state (or an optional member) is `nil`.
    public var wrappedValue: SliceValue? {
        member.read(from: Application.state(stateKeyPath).value)
    }
}
