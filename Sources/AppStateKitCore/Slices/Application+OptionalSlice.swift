extension Application {
    /// A view of one member of an optional state's value: `nil` while the state is `nil`.
    ///
    /// ```swift
    /// extension Application { var session: State<Session?> { state(initial: nil) } }
    /// let userID = Application.slice(\.session, \.userID).value   // nil until a session exists
    /// ```
    ///
    /// When writable, setting `nil` leaves the member unchanged (it is not optional), and writing
    /// while the state is `nil` does nothing.
    public struct OptionalSlice<SlicedState: MutableApplicationState, Value, SliceValue, SliceKeyPath: KeyPath<Value, SliceValue>>
    where SlicedState.Value == Value? {
        let stateKeyPath: KeyPath<Application, SlicedState>
        let valueKeyPath: SliceKeyPath

        /// The member's value, or `nil` while the state is `nil`.
        public var value: SliceValue? {
            Application.state(stateKeyPath).value?[keyPath: valueKeyPath]
        }
    }

    /// A read-only slice of an optional state's value.
    public static func slice<SlicedState: MutableApplicationState, Value, SliceValue>(
        _ stateKeyPath: KeyPath<Application, SlicedState>,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) -> OptionalSlice<SlicedState, Value, SliceValue, KeyPath<Value, SliceValue>> where SlicedState.Value == Value? {
        OptionalSlice(stateKeyPath: stateKeyPath, valueKeyPath: valueKeyPath)
    }

    /// A writable slice of an optional state's non-optional member.
    public static func slice<SlicedState: MutableApplicationState, Value, SliceValue>(
        _ stateKeyPath: KeyPath<Application, SlicedState>,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue>
    ) -> OptionalSlice<SlicedState, Value, SliceValue, WritableKeyPath<Value, SliceValue>> where SlicedState.Value == Value? {
        OptionalSlice(stateKeyPath: stateKeyPath, valueKeyPath: valueKeyPath)
    }
}

extension Application.OptionalSlice where SliceKeyPath == WritableKeyPath<Value, SliceValue> {
    /// The member's value, or `nil` while the state is `nil`. Setting a non-`nil` value updates
    /// the member atomically; setting `nil`, or setting while the state is `nil`, does nothing.
    ///
    /// A mutation in place (`count.value? += 1`) is one atomic step on the state.
    public var value: SliceValue? {
        get { Application.state(stateKeyPath).value?[keyPath: valueKeyPath] }
        set {
            guard let newValue else { return }
            var state = Application.state(stateKeyPath)
            state.modify { $0?[keyPath: valueKeyPath] = newValue }
        }
        _modify {
            var state = Application.state(stateKeyPath)
            yield &state.value[sliceMember: valueKeyPath]
        }
    }
}
