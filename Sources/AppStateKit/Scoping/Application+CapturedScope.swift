extension Application {
    /// The calling task's scopes (overrides and isolation), captured so they can be re-entered
    /// where task-locals don't reach: `Task.detached`, `DispatchQueue`, threads, callbacks.
    ///
    /// ```swift
    /// let scope = Application.currentScope
    /// DispatchQueue.global().async {
    ///     scope.run { handle() }   // sees the same overrides and isolated application
    /// }
    /// ```
    public static var currentScope: CapturedScope {
        CapturedScope(binding: TaskContext.current)
    }

    /// Scopes captured by ``Application/currentScope``.
    public struct CapturedScope: Sendable {
        @usableFromInline let binding: TaskContext.Binding

        /// Runs `body` inside the captured scopes.
        public func run<R>(_ body: () throws -> R) rethrows -> R {
            try TaskContext.bind(binding, operation: body)
        }

        /// Runs the `async` `body` inside the captured scopes.
        @inlinable
        public func run<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
            try await TaskContext.bind(binding, isolation: isolation, operation: body)
        }

        /// Whether the captured scopes include an isolated application.
        public var isIsolated: Bool { binding.isolatedApplication != nil }
    }
}
