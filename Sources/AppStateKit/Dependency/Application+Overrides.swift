extension Application {
    /// The dependency overrides of one scope, configured in ``Application/withOverrides(_:operation:)-(_,()->R)``.
    public struct Overrides: Sendable {
        /// The overrides, newest first; a key appears at most once. (A scope sets a handful, so
        /// a list is cheaper to build and to search than a dictionary; a one-override scope
        /// costs one node.)
        @usableFromInline var newest: ScopedOverride?

        /// An empty set of overrides.
        @usableFromInline init() {}

        /// Makes `keyPath` resolve to `value` inside the scope. The dependency's own factory is
        /// not run.
        @inlinable
        public mutating func override<Value: Sendable>(
            _ keyPath: KeyPath<Application, Dependency<Value>>,
            with value: Value
        ) {
            // Inlined, so the typed node is allocated with the caller's concrete `Value`.
            let key = Overrides.key(of: keyPath, overrideValue: value)
            let others = newest?.find(key) == nil ? newest : newest?.removing(key)
            newest = TypedScopedOverride(key: key, value: value, next: others)
        }

        /// The key of the dependency declared at `keyPath` (see `KeyCapture`).
        @usableFromInline
        static func key<Value: Sendable>(
            of keyPath: KeyPath<Application, Dependency<Value>>,
            overrideValue: Value
        ) -> EntryKey {
            KeyCapture.key(of: keyPath, overrideValue: overrideValue)
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
        let context = TaskContext(parent: TaskContext.current, isolatedApplication: nil, overrides: overrides.newest)
        return try TaskContext.bind(context, operation: operation)
    }

    /// The `async` form of ``withOverrides(_:operation:)-(_,()->R)``.
    public static func withOverrides<R>(
        _ configure: (inout Overrides) -> Void,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        var overrides = Overrides()
        configure(&overrides)
        let context = TaskContext(parent: TaskContext.current, isolatedApplication: nil, overrides: overrides.newest)
        return try await TaskContext.bind(context, isolation: isolation, operation: operation)
    }
}
