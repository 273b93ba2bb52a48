extension Application {
    /// A view of one member of a state's value.
    ///
    /// Obtained from `Application.slice(_:_:)`; writable when built from a `WritableKeyPath`, in
    /// which case a write replaces the member in the shared value as one atomic step.
    ///
    /// ```swift
    /// var theme = Application.slice(\.settings, \.theme)
    /// theme.value = .dark
    /// ```
    public struct Slice<SlicedState: MutableApplicationState, Value, SliceValue, SliceKeyPath: KeyPath<Value, SliceValue>>
    where SlicedState.Value == Value {
        let stateKeyPath: KeyPath<Application, SlicedState>
        let valueKeyPath: SliceKeyPath

        /// The member's current value.
        public var value: SliceValue {
            Application.state(stateKeyPath).value[keyPath: valueKeyPath]
        }
    }

    /// A read-only slice of a state's value.
    public static func slice<SlicedState: MutableApplicationState, Value, SliceValue>(
        _ stateKeyPath: KeyPath<Application, SlicedState>,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) -> Slice<SlicedState, Value, SliceValue, KeyPath<Value, SliceValue>> where SlicedState.Value == Value {
        Slice(stateKeyPath: stateKeyPath, valueKeyPath: valueKeyPath)
    }

    /// A writable slice of a state's value.
    public static func slice<SlicedState: MutableApplicationState, Value, SliceValue>(
        _ stateKeyPath: KeyPath<Application, SlicedState>,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue>
    ) -> Slice<SlicedState, Value, SliceValue, WritableKeyPath<Value, SliceValue>> where SlicedState.Value == Value {
        Slice(stateKeyPath: stateKeyPath, valueKeyPath: valueKeyPath)
    }
}

extension Application.Slice where SliceKeyPath == WritableKeyPath<Value, SliceValue> {
    /// The member's current value; setting it updates the member in the shared value atomically.
    ///
    /// A mutation in place (`count.value += 1`) is one atomic step on the state: the state's
    /// entry stays locked from the read to the write, so it must not touch that state again.
    public var value: SliceValue {
        get { Application.state(stateKeyPath).value[keyPath: valueKeyPath] }
        set {
            var state = Application.state(stateKeyPath)
            state.modify { $0[keyPath: valueKeyPath] = newValue }
        }
        _modify {
            var state = Application.state(stateKeyPath)
            yield &state.value[keyPath: valueKeyPath]
        }
    }
}
