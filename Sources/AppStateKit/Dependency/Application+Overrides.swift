extension Application {
    /// The dependency overrides of one scope, configured in ``Application/withOverrides(_:operation:)-(_,()->R)``.
    public struct Overrides: Sendable {
        /// The overrides in the order they were set; a key appears at most once. (A scope sets
        /// a handful, so a list is cheaper to build and to search than a dictionary.)
        var values: [TaskContext.Override] = []

        /// Makes `keyPath` resolve to `value` inside the scope. The dependency's own factory is
        /// not run.
        public mutating func override<Value: Sendable>(
            _ keyPath: KeyPath<Application, Dependency<Value>>,
            with value: Value
        ) {
            let key = KeyCapture.key(of: keyPath, overrideValue: value)
            if let index = values.firstIndex(where: { $0.key == key }) {
                values[index].value = value
            } else {
                values.append(TaskContext.Override(key: key, value: value))
            }
        }
    }

    /// Runs `operation` with dependencies overridden for the calling task and the child tasks it
    /// creates — and for nobody else.
    ///
    /// ```swift
    /// let greeting = Application.withOverrides {
    ///     $0.override(\.clock, with: FixedClock(now: .distantPast))
    /// } operation: {
    ///     makeGreeting()   // sees FixedClock, as do Task {} / task groups / async let inside
    /// }
    /// ```
    ///
    /// Scopes nest: an inner scope's overrides layer over the outer one's and disappear when it
    /// returns. Dependencies first created inside the scope are created for the scope only, so
    /// a factory that resolves an overridden dependency never leaks it into the shared registry.
    /// `Task.detached`, `DispatchQueue` and `Thread` don't inherit the scope; carry it with
    /// ``currentScope``.
    public static func withOverrides<R>(
        _ configure: (inout Overrides) -> Void,
        operation: () throws -> R
    ) rethrows -> R {
        var overrides = Overrides()
        configure(&overrides)
        let context = TaskContext(parent: TaskContext.current, isolatedApplication: nil, overrides: overrides.values)
        return try TaskContext.$current.withValue(context, operation: operation)
    }

    /// The `async` form of ``withOverrides(_:operation:)-(_,()->R)``.
    public static func withOverrides<R>(
        _ configure: (inout Overrides) -> Void,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        var overrides = Overrides()
        configure(&overrides)
        let context = TaskContext(parent: TaskContext.current, isolatedApplication: nil, overrides: overrides.values)
        return try await TaskContext.$current.withValue(context, operation: operation, isolation: isolation)
    }
}
