/// Reads and writes one member of a state's value as if it were a stored property.
///
/// ```swift
/// struct SettingsScreen {
///     @Slice(\.settings, \.theme) var theme
///     func toggle() { theme = theme == .dark ? .light : .dark }   // atomic member update
/// }
/// ```
///
/// `KeyPaths` is inferred: ``SendableKeyPaths`` for key paths that are `Sendable` (the wrapper is
/// then `Sendable`), ``NonSendableKeyPaths`` for one to an actor-isolated member.
@propertyWrapper
public struct Slice<SlicedState: MutableApplicationState, Value, SliceValue, KeyPaths>
where SlicedState.Value == Value {
    private let stateKeyPath: KeyPath<Application, SlicedState>
    private let valueKeyPath: WritableKeyPath<Value, SliceValue>

    /// Creates the wrapper for the member `valueKeyPath` of the state at `stateKeyPath`.
    public init(
        _ stateKeyPath: KeyPath<Application, SlicedState> & Sendable,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue> & Sendable
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
        _ valueKeyPath: WritableKeyPath<Value, SliceValue>
    ) where KeyPaths == NonSendableKeyPaths {
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

// Safe: only the initializer taking `Sendable` key paths makes a `Slice<…, SendableKeyPaths>`.
extension Slice: @unchecked Sendable where KeyPaths == SendableKeyPaths {}
