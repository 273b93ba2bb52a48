extension Application {
    /// A writable view of an optional member of an optional state's value.
    ///
    /// Reads `nil` while the state or the member is `nil`; setting `nil` clears the member.
    /// Writing while the state itself is `nil` does nothing.
    ///
    /// ```swift
    /// var nickname = Application.slice(\.session, \.nickname)  // Session.nickname: String?
    /// nickname.value = nil
    /// ```
    public struct OptionalSliceOptionalValue<SlicedState: MutableApplicationState, Value, SliceValue>
    where SlicedState.Value == Value? {
        let stateKeyPath: KeyPath<Application, SlicedState>
        let valueKeyPath: WritableKeyPath<Value, SliceValue?>

        /// The member's value, or `nil` while the state or the member is `nil`.
        ///
        /// A mutation in place (`nickname.value?.append("!")`) is one atomic step on the state.
        public var value: SliceValue? {
            get { Application.state(stateKeyPath).value?[keyPath: valueKeyPath] }
            set {
                var state = Application.state(stateKeyPath)
                state.modify { $0?[keyPath: valueKeyPath] = newValue }
            }
            _modify {
                var state = Application.state(stateKeyPath)
                yield &state.value[sliceMember: valueKeyPath]
            }
        }
    }

    /// A writable slice of an optional state's optional member.
    public static func slice<SlicedState: MutableApplicationState, Value, SliceValue>(
        _ stateKeyPath: KeyPath<Application, SlicedState>,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue?>
    ) -> OptionalSliceOptionalValue<SlicedState, Value, SliceValue> where SlicedState.Value == Value? {
        OptionalSliceOptionalValue(stateKeyPath: stateKeyPath, valueKeyPath: valueKeyPath)
    }
}
