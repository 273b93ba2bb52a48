/// Reads and writes one member of a state's value as if it were a stored property.
///
/// ```swift
/// struct SettingsScreen {
///     @Slice(\.settings, \.theme) var theme
///     func toggle() { theme = theme == .dark ? .light : .dark }   // atomic member update
/// }
/// ```
@propertyWrapper
public struct Slice<SlicedState: MutableApplicationState, Value, SliceValue>: Sendable
where SlicedState.Value == Value {
    private let stateKeyPath: KeyPath<Application, SlicedState> & Sendable
    private let valueKeyPath: WritableKeyPath<Value, SliceValue> & Sendable

    /// Creates the wrapper for the member `valueKeyPath` of the state at `stateKeyPath`.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState> & Sendable, _ valueKeyPath: WritableKeyPath<Value, SliceValue> & Sendable) {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The member's current value; setting it updates the member in the shared value.
    ///
    /// A mutation in place (`count += 1`) is one atomic step on the state.
    public var wrappedValue: SliceValue {
        get { Application.slice(stateKeyPath, valueKeyPath).value }
        nonmutating set {
            var slice = Application.slice(stateKeyPath, valueKeyPath)
            slice.value = newValue
        }
        nonmutating _modify {
            var slice = Application.slice(stateKeyPath, valueKeyPath)
            yield &slice.value
        }
    }
}
