import Synchronization

/// One dependency override of a scope: a node in the list of overrides the calling task's
/// scopes bind, newest first, so the first node found for a key is its innermost override.
/// The front node stands for the scope itself: it keeps the dependencies first created inside
/// the scope (``scopedDependency(for:in:create:publish:)``). Nodes are immutable and typed
/// (``TypedScopedOverride``), so reading an override back is a class cast.
@usableFromInline
package class ScopedOverride: @unchecked Sendable {
    // @unchecked only because the class is not final (its subclass adds the value): every
    // stored property is immutable and `Sendable`.
    @usableFromInline let key: EntryKey
    /// The override made before this one, in the same scope or an enclosing one.
    @usableFromInline let next: ScopedOverride?
    /// Dependencies first created inside the scope whose front node this is, by registry and
    /// key; allocated on the first one (most scopes create none).
    private let created = AtomicLazyReference<LockedBox<[CreatedKey: any Sendable]>>()

    /// ``created``'s box, made on first use.
    private var createdBox: LockedBox<[CreatedKey: any Sendable]> {
        created.load() ?? created.storeIfNil(LockedBox([:]))
    }

    /// A dependency created inside a scope (a scope spanning an isolation scope serves two
    /// registries).
    private struct CreatedKey: Hashable {
        let registry: UInt64
        let key: EntryKey
    }

    @usableFromInline
    init(key: EntryKey, next: ScopedOverride?) {
        OverrideCensus.count(fastHash: key.fastHash)
        self.key = key
        self.next = next
    }

    deinit {
        OverrideCensus.uncount(fastHash: key.fastHash)
    }

    /// The first override of `key` in this list, if any: its innermost one.
    @usableFromInline
    package final func find(_ key: borrowing EntryKey) -> ScopedOverride? {
        // Recursive: walking borrowed immutable fields retains nothing but the node returned (a
        // loop variable would retain and release every node it passes).
        if self.key.fastHash == key.fastHash, self.key.matches(key) { return self }
        return next?.find(key)
    }

    /// The value the calling task's innermost scope provides for the dependency `key`, which
    /// no scope overrides, or `nil` to use the registry: when no scope overrides anything, or
    /// the registry's entry has a value. A dependency without a value in the registry is
    /// created here: if its factory was served an override, the result is kept in the scope
    /// (by its front node), so the override never leaks into the shared registry; otherwise
    /// `publish` (given the value, `key` and `registry`, so the caller's closure captures
    /// nothing) hands it to the registry and returns the registry's instance.
    static func scopedDependency<Value: Sendable>(
        for key: EntryKey,
        in registry: Registry,
        create: () -> Value,
        publish: (Value, EntryKey, Registry) -> Value
    ) -> Value? {
        guard !OverrideCensus.isEmpty, let scope = TaskContext.currentOverrides else { return nil }
        if let existing = registry.existingEntry(for: key), !existing.awaitsValue { return nil }
        let createdKey = CreatedKey(registry: registry.identity, key: key)
        if let scoped = scope.created.load()?.withLock({ $0[createdKey] }) as? Value { return scoped }
        let (made, dependsOnOverrides) = TaskContext.countingOverridesServed(create)
        if dependsOnOverrides {
            // Kept for the scope; if two tasks raced, the first stored value wins.
            return scope.createdBox.withLock { created in
                if let existing = created[createdKey] as? Value { return existing }
                created[createdKey] = made
                return made
            }
        }
        // Independent of every override: publish it (if another task published first, that
        // instance wins and is returned, as for any concurrent first access).
        return publish(made, key, registry)
    }
}

/// A ``ScopedOverride`` of a dependency whose instances are `Value`s.
@usableFromInline
final class TypedScopedOverride<Value: Sendable>: ScopedOverride, @unchecked Sendable {
    // Safe: immutable, and `Value` is `Sendable`.
    @usableFromInline let value: Value

    @usableFromInline
    init(key: EntryKey, value: Value, next: ScopedOverride?) {
        self.value = value
        super.init(key: key, next: next)
    }
}
