/// One dependency override of a scope: a node in the scope's list of overrides, newest first.
///
/// Nodes are immutable and typed (``TypedScopedOverride``), so a scope with one override costs
/// one small allocation, and reading the override back is a class cast, not an existential
/// cast of a boxed `any Sendable`.
@usableFromInline
class ScopedOverride: @unchecked Sendable {
    // Safe: every stored property is immutable, and the subclass's value is `Sendable`.
    /// The overridden dependency.
    @usableFromInline let key: EntryKey
    /// The override set before this one in the same scope.
    @usableFromInline let next: ScopedOverride?

    @usableFromInline
    init(key: EntryKey, next: ScopedOverride?) {
        OverrideCensus.count(fastHash: key.fastHash)
        self.key = key
        self.next = next
    }

    deinit {
        OverrideCensus.uncount(fastHash: key.fastHash)
    }

    /// The override of `key` in this list, if any.
    @usableFromInline
    final func find(_ key: borrowing EntryKey) -> ScopedOverride? {
        // Recursive, so only the node returned is retained (see `TaskContext.overriddenValue`).
        if self.key.fastHash == key.fastHash, self.key.matches(key) { return self }
        return next?.find(key)
    }

    /// This list without the override of `key` (the nodes after it are kept, the ones before it
    /// copied).
    @usableFromInline
    final func removing(_ key: EntryKey) -> ScopedOverride? {
        if self.key == key { return next }
        return copy(next: next?.removing(key))
    }

    /// The same override followed by `next`.
    func copy(next: ScopedOverride?) -> ScopedOverride {
        preconditionFailure("AppStateKit: internal error: ScopedOverride is abstract")
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

    override func copy(next: ScopedOverride?) -> ScopedOverride {
        TypedScopedOverride(key: key, value: value, next: next)
    }
}
