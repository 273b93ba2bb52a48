import Synchronization

/// What a `with…` scope changes for the tasks running inside it: an isolated application and/or
/// a layer of dependency overrides. Bound with `@TaskLocal`, so child tasks inherit it and other
/// tasks never see it.
@usableFromInline
final class ScopeContext: Sendable {
    /// The innermost scope of the calling task.
    @TaskLocal static var current: ScopeContext?

    /// How many scope contexts exist. While none does, the access path skips the task-local
    /// lookup entirely. Counted per object (not per `with…` call) because unstructured tasks
    /// created inside a scope keep its context alive after the scope returns.
    @usableFromInline static let liveCount = Atomic<Int>(0)

    @inlinable
    static var isAnyLive: Bool { liveCount.load(ordering: .relaxed) > 0 }

    /// The enclosing scope's context.
    let parent: ScopeContext?
    /// The isolated application serving this scope, if any (inherited from `parent`).
    let isolatedApplication: IsolatedApplication?
    /// Dependency overrides set by this scope, by dependency key.
    let overrides: [EntryKey: any Sendable]
    /// Whether this scope or an enclosing one overrides any dependency.
    let hasOverrides: Bool
    /// Dependencies first created inside this override scope (see `scopedDependency`).
    private let created = Mutex<[EntryKey: any Sendable]>([:])

    init(parent: ScopeContext?, isolatedApplication: IsolatedApplication?, overrides: [EntryKey: any Sendable]) {
        self.parent = parent
        self.isolatedApplication = isolatedApplication ?? parent?.isolatedApplication
        self.overrides = overrides
        self.hasOverrides = !overrides.isEmpty || (parent?.hasOverrides ?? false)
        Self.liveCount.add(1, ordering: .relaxed)
    }

    deinit {
        Self.liveCount.subtract(1, ordering: .relaxed)
    }

    /// The calling task's isolated application, if it runs inside an isolation scope.
    @usableFromInline
    static var currentIsolatedApplication: Application? {
        current?.isolatedApplication?.application
    }

    /// The calling task's innermost scoped override of `key`, if any.
    @usableFromInline
    static func currentOverride(for key: EntryKey) -> (any Sendable)? {
        current?.overriddenValue(for: key)
    }

    /// The value a scope provides for the dependency `key`, or `nil` to use the registry.
    ///
    /// Inside an override scope, an overridden key resolves to its override. A dependency that
    /// does not exist in the registry yet is created *in the scope* instead, so a factory that
    /// resolves an overridden dependency never leaks the override into the shared registry.
    /// Existing registry entries are shared.
    @usableFromInline
    static func scopedDependency<Value: Sendable>(for key: EntryKey, in registry: Registry, create: () -> Value) -> Value? {
        guard let context = current, context.hasOverrides else { return nil }
        if let overridden = context.overriddenValue(for: key) {
            return overridden as? Value
        }
        if registry.existingEntry(for: key, as: RegistryEntry.self) != nil { return nil }
        return context.createdDependency(for: key, create: create)
    }

    /// The innermost override of `key` in this scope or its parents.
    func overriddenValue(for key: EntryKey) -> (any Sendable)? {
        var context: ScopeContext? = self
        while let scope = context {
            if let value = scope.overrides[key] { return value }
            context = scope.parent
        }
        return nil
    }

    private func createdDependency<Value: Sendable>(for key: EntryKey, create: () -> Value) -> Value {
        if let existing = created.withLock({ $0[key] }) as? Value { return existing }
        // The factory runs outside the lock; if two tasks race, the first stored value wins.
        let made = create()
        return created.withLock { storage in
            if let existing = storage[key] as? Value { return existing }
            storage[key] = made
            return made
        }
    }
}
