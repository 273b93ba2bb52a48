import Synchronization

/// What a `with…` scope changes for the tasks running inside it: an isolated application and/or
/// a layer of dependency overrides. Bound with `@TaskLocal`, so child tasks inherit it and other
/// tasks never see it.
///
/// Called a task context, not a scope, because AppState's `Application.Scope` (kept here as
/// ``Application/Scope``) names an entry (feature and id), not a region of code.
@usableFromInline
final class TaskContext: @unchecked Sendable {
    // Safe: every stored property is immutable except `created`, which is only accessed while
    // `createdLock` is held.
    /// The innermost scope of the calling task, wrapped in a non-generic struct: the
    /// task-local's generic code then copies it with the struct's own value witness (one
    /// retain, none outside every scope) instead of going through `Optional`'s generic ones.
    @TaskLocal static var bound = Binding(context: nil)

    /// What ``bound`` holds.
    struct Binding: Sendable {
        let context: TaskContext?
    }

    /// The innermost scope of the calling task, if it runs inside one.
    static var current: TaskContext? { bound.context }

    /// Runs `operation` with `context` (`nil`: no scope at all) as the calling task's innermost scope.
    @inline(__always)
    static func bind<Result>(_ context: TaskContext?, operation: () throws -> Result) rethrows -> Result {
        try $bound.withValue(Binding(context: context), operation: operation)
    }

    /// The `async` form of ``bind(_:operation:)``.
    @inline(__always)
    static func bind<Result>(
        _ context: TaskContext?,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $bound.withValue(Binding(context: context), operation: operation, isolation: isolation)
    }

    /// How many scope contexts exist. While none does, the access path skips the task-local
    /// lookup entirely. Counted per object (not per `with…` call) because unstructured tasks
    /// created inside a scope keep its context alive after the scope returns.
    @usableFromInline static let liveCount = Atomic<Int>(0)

    @inlinable
    static var isAnyLive: Bool { liveCount.load(ordering: .relaxed) > 0 }

    /// How many of those serve an isolated application. While none does, choosing the
    /// application for an access skips the task-local lookup even inside override scopes.
    @usableFromInline static let isolatedLiveCount = Atomic<Int>(0)

    @inlinable
    static var isAnyIsolatedLive: Bool { isolatedLiveCount.load(ordering: .relaxed) > 0 }

    /// The enclosing scope's context.
    let parent: TaskContext?
    /// The isolated application serving this scope, if any (inherited from `parent`).
    let isolatedApplication: IsolatedApplication?
    /// Dependency overrides set by this scope, newest first.
    let overrides: ScopedOverride?
    /// Whether this scope or an enclosing one overrides any dependency.
    let hasOverrides: Bool
    /// Dependencies first created inside this override scope (see `scopedDependency`), guarded
    /// by `createdLock`. That lock is shared by all scopes: creating a dependency inside a scope
    /// is rare, and a scope then costs no lock allocation.
    nonisolated(unsafe) private var created: [EntryKey: any Sendable] = [:]
    private static let createdLock = Lock()

    init(parent: TaskContext?, isolatedApplication: IsolatedApplication?, overrides: ScopedOverride?) {
        self.parent = parent
        self.isolatedApplication = isolatedApplication ?? parent?.isolatedApplication
        self.overrides = overrides
        self.hasOverrides = overrides != nil || (parent?.hasOverrides ?? false)
        // Wrapping: one atomic add, not an overflow-checked compare-and-swap loop that retries
        // while other threads open and close scopes (the counts stay far below `Int.max`).
        Self.liveCount.wrappingAdd(1, ordering: .relaxed)
        if self.isolatedApplication != nil {
            Self.isolatedLiveCount.wrappingAdd(1, ordering: .relaxed)
        }
    }

    deinit {
        if isolatedApplication != nil {
            Self.isolatedLiveCount.wrappingSubtract(1, ordering: .relaxed)
        }
        Self.liveCount.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Runs `body` outside every override scope of the calling task, but still inside its
    /// isolated application, if any.
    static func withoutOverrides<Result>(_ body: () -> Result) -> Result {
        guard let context = current, context.hasOverrides else { return body() }
        let isolatedOnly = context.isolatedApplication.map { TaskContext(parent: nil, isolatedApplication: $0, overrides: nil) }
        return bind(isolatedOnly, operation: body)
    }

    /// The calling task's isolated application, if it runs inside an isolation scope.
    @usableFromInline
    static var currentIsolatedApplication: Application? {
        bound.context?.isolatedApplication?.application
    }

    /// The calling task's innermost scope context if it (or an enclosing one) overrides any
    /// dependency: the only case in which a dependency lookup must ask the scope.
    @usableFromInline
    static var currentOverriding: TaskContext? {
        guard let context = bound.context, context.hasOverrides else { return nil }
        return context
    }

    /// Counts a scoped override served on this thread (see ``scopedDependency(for:in:create:publish:)``).
    @usableFromInline
    static func noteOverrideServed() {
        ThreadLookupCache.current.overridesServed += 1
    }

    /// The value this override scope provides for the dependency `key`, which it does not
    /// override and the calling thread's memo doesn't hold, or `nil` to use the registry.
    ///
    /// (An overridden key resolves to its override, and a key the thread's memo holds to the
    /// registry's instance, both in the caller's code: see `Application.dependency(key:_:)`.)
    /// A dependency that does not exist in the registry yet is
    /// created by running its factory here: if the factory resolved an overridden dependency,
    /// the result belongs to the scope and is kept in it, so the override never leaks into the
    /// shared registry; otherwise `publish` hands it to the registry like any first access and
    /// returns the registry's instance (it is given the value, `key` and `registry`, so the
    /// caller's closure captures nothing). Existing registry entries are shared.
    @usableFromInline
    func scopedDependency<Value: Sendable>(
        for key: EntryKey,
        in registry: Registry,
        create: () -> Value,
        publish: (Value, EntryKey, Registry) -> Value
    ) -> Value? {
        // The caller found no memo slot, so only the registry itself can tell.
        if registry.existingEntry(for: key, as: RegistryEntry.self) != nil { return nil }
        if let scoped = existingCreatedDependency(for: key, as: Value.self) { return scoped }
        let cache = ThreadLookupCache.current
        let servedBefore = cache.overridesServed
        let made = create()
        guard cache.overridesServed == servedBefore else {
            return keepCreatedDependency(made, for: key)
        }
        // Independent of every override: publish it (if another task published first, that
        // instance wins and is returned, as for any concurrent first access).
        return publish(made, key, registry)
    }

    /// The innermost override of `key` in this scope or its parents.
    @usableFromInline
    func overriddenValue(for key: borrowing EntryKey) -> ScopedOverride? {
        // Recursive rather than a loop over a variable: walking immutable fields of borrowed
        // objects retains nothing but the node returned (a loop variable would retain and
        // release every context and node it passes, an atomic write each).
        if let found = overrides?.find(key) { return found }
        guard let parent, parent.hasOverrides else { return nil }
        return parent.overriddenValue(for: key)
    }

    private func existingCreatedDependency<Value: Sendable>(for key: EntryKey, as type: Value.Type) -> Value? {
        Self.createdLock.withLock { created[key] } as? Value
    }

    /// Keeps `made` for this scope; if two tasks raced, the first stored value wins.
    private func keepCreatedDependency<Value: Sendable>(_ made: Value, for key: EntryKey) -> Value {
        Self.createdLock.withLock {
            if let existing = created[key] as? Value { return existing }
            created[key] = made
            return made
        }
    }
}
