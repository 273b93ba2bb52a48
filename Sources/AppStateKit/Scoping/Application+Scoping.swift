import Foundation

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

    /// Runs `operation` against a fresh, private application: every state, stored state, file
    /// state and dependency starts from its initial value or factory, and nothing written inside
    /// is visible outside or survives the scope.
    ///
    /// ```swift
    /// Application.withIsolatedApplication {
    ///     Application.update(\.counter) { $0 += 1 }   // this scope's counter only
    /// }
    /// ```
    ///
    /// Stored states use an ``InMemoryDefaults`` store and file states a temporary directory
    /// that is removed when the scope ends; sandbox writes skip `fsync`. A handle acts on the
    /// application it was taken from: one taken inside keeps using this isolated application
    /// after the scope (a file state written then lands in the same directory, removed again when
    /// the application is released), and one taken outside keeps using its own application
    /// inside the scope. Global ``override(_:with:)``, ``promote(_:with:)``
    /// and ``promote(to:)`` inside the scope affect the scope only. Child tasks inherit the
    /// scope; `Task.detached`, `DispatchQueue` and `Thread` don't (see ``currentScope``).
    public static func withIsolatedApplication<R>(_ operation: () throws -> R) rethrows -> R {
        let sandbox = IsolationSandbox()
        defer { sandbox.remove() }
        let context = TaskContext(parent: TaskContext.current, isolatedApplication: sandbox.isolatedApplication, overrides: [])
        return try TaskContext.$current.withValue(context, operation: operation)
    }

    /// The `async` form of ``withIsolatedApplication(_:)-(()->R)``.
    public static func withIsolatedApplication<R>(
        isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> R
    ) async rethrows -> R {
        let sandbox = IsolationSandbox()
        defer { sandbox.remove() }
        let context = TaskContext(parent: TaskContext.current, isolatedApplication: sandbox.isolatedApplication, overrides: [])
        return try await TaskContext.$current.withValue(context, operation: operation, isolation: isolation)
    }

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
        CapturedScope(context: TaskContext.current)
    }

    /// Scopes captured by ``Application/currentScope``.
    public struct CapturedScope: Sendable {
        let context: TaskContext?

        /// Runs `body` inside the captured scopes.
        public func run<R>(_ body: () throws -> R) rethrows -> R {
            try TaskContext.$current.withValue(context, operation: body)
        }

        /// Runs the `async` `body` inside the captured scopes.
        public func run<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
            try await TaskContext.$current.withValue(context, operation: body, isolation: isolation)
        }

        /// Whether the captured scopes include an isolated application.
        public var isIsolated: Bool { context?.isolatedApplication != nil }
    }

    /// Whether the calling task runs inside ``withIsolatedApplication(_:)-(()->R)``.
    public static var isIsolated: Bool {
        TaskContext.current?.isolatedApplication != nil
    }
}
