extension Application {
    /// The calling task's context — its scoped overrides and isolated application — captured
    /// so it can be re-entered where task-locals don't reach: `Task.detached`, `DispatchQueue`,
    /// threads, callbacks.
    ///
    /// ```swift
    /// let context = Application.currentContext
    /// DispatchQueue.global().async {
    ///     context.run { handle() }   // sees the same overrides and isolated application
    /// }
    /// ```
    public static var currentContext: CapturedContext {
        CapturedContext(binding: TaskContext.current)
    }

    /// A task's context captured by ``Application/currentContext``.
    public struct CapturedContext: Sendable {
        @usableFromInline let binding: TaskContext.Binding

        /// Runs `body` in the captured context.
        public func run<R>(_ body: () throws -> R) rethrows -> R {
            try TaskContext.bind(binding, operation: body)
        }

        /// Runs the `async` `body` in the captured context.
        @inlinable
        public func run<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
            try await TaskContext.bind(binding, isolation: isolation, operation: body)
        }

        /// Whether the captured context includes an isolated application.
        public var isIsolated: Bool { binding.isolatedApplication != nil }
    }
}
