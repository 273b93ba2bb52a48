extension Application {
    /// The dependency overrides of one scope, configured in ``Application/withOverrides(_:operation:)-(_,()->R)``.
    public struct Overrides: Sendable {
        /// The overrides, newest first, in front of the enclosing scopes' (`base`): a list, since
        /// a scope sets a handful. A key set twice has two nodes; the newer is found.
        @usableFromInline var newest: ScopedOverride?

        /// No overrides of its own yet, in front of `base`, the enclosing scopes' overrides.
        @usableFromInline init(base: ScopedOverride?) {
            newest = base
        }

        /// Makes `keyPath` resolve to `value` inside the scope. The dependency's own factory is
        /// not run.
        @inlinable
        public mutating func override<Value: Sendable>(
            _ keyPath: KeyPath<Application, Dependency<Value>>,
            with value: Value
        ) {
            // Inlined, so the typed node is allocated with the caller's concrete `Value`, and the
            // closure, made where the key-path literal is written, calls the declaring property
            // directly (a key path applied at run time costs ~500 instructions more) and drops
            // the handle there (returned, unspecialised code would look its type up each time).
            newest = TypedScopedOverride(
                key: Overrides.key(of: keyPath, declaredBy: { _ = $0[keyPath: keyPath] }, overrideValue: value),
                value: value,
                next: newest
            )
        }

        /// The key the declaration at `keyPath` names now (see `KeyCapture`); `declaration`
        /// applies `keyPath`.
        @usableFromInline
        static func key<Value: Sendable>(
            of keyPath: KeyPath<Application, Dependency<Value>>,
            declaredBy declaration: (Application) -> Void,
            overrideValue: Value
        ) -> EntryKey {
            guard let key = KeyCapture.declaredKey(by: declaration, replacement: overrideValue) else {
                preconditionFailure(KeyCapture.notADeclarationMessage(keyPath))
            }
            return key
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
    /// ``currentContext``.
    // Inlinable so the task-local's binding is specialised for the caller's `R`.
    @inlinable
    public static func withOverrides<R>(
        _ configure: (inout Overrides) -> Void,
        operation: () throws -> R
    ) rethrows -> R {
        try TaskContext.bind(scopes(overriding: configure), operation: operation)
    }

    /// The `async` form of ``withOverrides(_:operation:)-(_,()->R)``.
    ///
    /// `operation` runs on the caller's actor (`isolation`), and the scope costs no more
    /// executor switches than binding a `@TaskLocal` does.
    // Inlinable so the caller's executor switches and the task-local's merge.
    @inlinable
    public static func withOverrides<R>(
        _ configure: (inout Overrides) -> Void,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        try await TaskContext.bind(scopes(overriding: configure), isolation: isolation, operation: operation)
    }

    /// The calling task's scopes with the overrides `configure` sets in front of theirs.
    @usableFromInline
    static func scopes(overriding configure: (inout Overrides) -> Void) -> TaskContext.Binding {
        let outer = TaskContext.current
        var overrides = Overrides(base: outer.overrides)
        configure(&overrides)
        return outer.with(overrides: overrides.newest)
    }
}
