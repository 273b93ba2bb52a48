extension Application {
    /// Returns the handle of a state, stored state or file state.
    ///
    /// ```swift
    /// var counter = Application.state(\.counter)
    /// counter.value += 1
    /// ```
    @inlinable @inline(__always)
    public static func state<Value, S: MutableApplicationState>(
        _ keyPath: KeyPath<Application, S>
    ) -> S where S.Value == Value {
        withCurrent { $0[keyPath: keyPath] }
    }

    /// Restores the initial value of a state, stored state or file state.
    ///
    /// For a stored or file state this removes the persisted value.
    @inlinable
    public static func reset<S: MutableApplicationState>(_ keyPath: KeyPath<Application, S>) {
        var handle = current[keyPath: keyPath]
        handle.reset()
    }

    /// Atomically reads, modifies and writes a state: no other write to the entry can happen
    /// between the read and the write.
    ///
    /// ```swift
    /// Application.update(\.requestCount) { $0 += 1 }
    /// let next = Application.update(\.sequence) { value -> Int in value += 1; return value }
    /// ```
    ///
    /// `body` runs with the entry locked: keep it short, and don't read or write the same entry
    /// inside it (that is detected and stops the process with the entry's key). Other entries
    /// are unaffected.
    @inlinable @inline(__always) @discardableResult
    public static func update<Value: Sendable, Result>(
        _ keyPath: KeyPath<Application, State<Value>>,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        try withCurrent { $0[keyPath: keyPath] }.modify(body)
    }
}
