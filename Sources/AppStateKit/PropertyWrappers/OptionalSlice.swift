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
@propertyWrapper
public struct OptionalSlice<SlicedState: MutableApplicationState, Value, SliceValue>: Sendable
where SlicedState.Value == Value? {
    private let stateKeyPath: KeyPath<Application, SlicedState> & Sendable
    private let member: OptionalMember<Value, SliceValue>

    /// Creates the wrapper for a non-optional member of an optional state.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState> & Sendable, _ valueKeyPath: WritableKeyPath<Value, SliceValue> & Sendable) {
        self.stateKeyPath = stateKeyPath
        self.member = .value(valueKeyPath)
    }

    /// Creates the wrapper for an optional member of an optional state.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState> & Sendable, _ valueKeyPath: WritableKeyPath<Value, SliceValue?> & Sendable) {
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
