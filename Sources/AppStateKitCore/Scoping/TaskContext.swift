import Synchronization

/// What the `with…` scopes around the calling task change: an isolated application and/or
/// layers of dependency overrides. Bound task-locally, so child tasks inherit it and other tasks
/// never see it. (Not called a scope: ``Application/Scope`` names an entry, as in AppState.)
@usableFromInline
package enum TaskContext {
    /// What the calling task's scopes bind. (A `TaskLocal` object, not a `@TaskLocal` property,
    /// whose `$bound` the inlinable async `bind` couldn't use.)
    @usableFromInline static let bound = TaskLocal(wrappedValue: Binding.none)

    /// What ``bound`` holds.
    @usableFromInline
    package struct Binding: Sendable {
        /// The isolated application of the innermost isolation scope, if any.
        package let isolatedApplication: IsolatedApplication?
        /// The overrides of the innermost override scope, followed by those of the scopes around
        /// it: newest first, so the innermost override of a key is the first found.
        let overrides: ScopedOverride?

        /// Outside every scope (computed: a stored static checks its lazy initialisation per use).
        package static var none: Binding { Binding(isolatedApplication: nil, overrides: nil) }

        /// These scopes with `overrides` in place of their overrides.
        func with(overrides: ScopedOverride?) -> Binding {
            Binding(isolatedApplication: isolatedApplication, overrides: overrides)
        }

        /// These scopes inside the isolation scope of `isolatedApplication`.
        package func with(isolatedApplication: IsolatedApplication) -> Binding {
            Binding(isolatedApplication: isolatedApplication, overrides: overrides)
        }
    }

    /// The calling task's scopes; ``Binding/none``, without reading the task-local, while no
    /// override node or isolated application exists.
    package static var current: Binding {
        guard !OverrideCensus.isEmpty || IsolatedApplication.isAnyLive else { return .none }
        return bound.get()
    }

    /// Runs `operation` with `binding` as the calling task's scopes.
    @inlinable @inline(__always)
    package static func bind<Result>(_ binding: Binding, operation: () throws -> Result) rethrows -> Result {
        try bound.withValue(binding, operation: operation)
    }

    /// The `async` form of ``bind(_:operation:)``.
    @inlinable @inline(__always)
    package static func bind<Result>(
        _ binding: Binding,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await bound.withValue(binding, operation: operation, isolation: isolation)
    }

    /// Runs `body` outside every override scope of the calling task, but still inside its
    /// isolated application, if any.
    package static func withoutOverrides<Result>(_ body: () -> Result) -> Result {
        let outer = current
        guard outer.overrides != nil else { return body() }
        return bind(outer.with(overrides: nil), operation: body)
    }

    /// The calling task's isolated application, if it runs inside an isolation scope.
    @usableFromInline
    static var currentIsolatedApplication: Application? {
        bound.get().isolatedApplication?.application
    }

    /// The overrides of the calling task's scopes, innermost first, if any.
    @usableFromInline
    package static var currentOverrides: ScopedOverride? {
        bound.get().overrides
    }

    /// Counts a scoped override served to the calling task (see `ScopedOverride.scopedDependency`).
    @usableFromInline
    static func noteOverrideServed() {
        // No factory counts anywhere (the common case): skip the task-local lookup.
        guard countingFactories.load(ordering: .relaxed) != 0 else { return }
        var counter = servedOverrides
        while let current = counter {
            current.count.add(1, ordering: .relaxed)
            counter = current.enclosing
        }
    }

    /// Runs `create` and tells whether it was served a scoped override (directly, or through a
    /// dependency it created in turn): a factory run inside a scope depends on the scope then.
    static func countingOverridesServed<Value>(_ create: () -> Value) -> (Value, servedOverride: Bool) {
        let counter = ServedOverrides(enclosing: servedOverrides)
        // Counted before `create` runs, so its reads (and its child tasks') see the count.
        countingFactories.add(1, ordering: .relaxed)
        defer { countingFactories.subtract(1, ordering: .relaxed) }
        let made = $servedOverrides.withValue(counter, operation: create)
        return (made, counter.count.load(ordering: .relaxed) != 0)
    }

    /// How many ``countingOverridesServed(_:)`` run in the process: while none does, serving an
    /// override counts nothing.
    private static let countingFactories = Atomic<Int>(0)

    /// The counters of the factories running inside scopes in the calling task, innermost first.
    @TaskLocal private static var servedOverrides: ServedOverrides?

    /// How many overrides a factory running inside a scope was served.
    private final class ServedOverrides: Sendable {
        let enclosing: ServedOverrides?
        let count = Atomic<Int>(0)

        init(enclosing: ServedOverrides?) {
            self.enclosing = enclosing
        }
    }
}
