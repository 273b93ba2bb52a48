/// Reads one member of a state's value, read-only.
///
/// ```swift
/// struct Header {
///     @Constant(\.settings, \.appName) var appName
/// }
/// ```
@propertyWrapper
public struct Constant<SlicedState: MutableApplicationState, Value, SliceValue>: Sendable
where SlicedState.Value == Value {
    private let stateKeyPath: KeyPath<Application, SlicedState> & Sendable
    private let valueKeyPath: KeyPath<Value, SliceValue> & Sendable

    /// Creates the wrapper for the member `valueKeyPath` (read-only or writable) of the state at
    /// `stateKeyPath`.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState> & Sendable, _ valueKeyPath: KeyPath<Value, SliceValue> & Sendable) {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The member's current value.
    public var wrappedValue: SliceValue {
        Application.state(stateKeyPath).value[keyPath: valueKeyPath]
    }
}
