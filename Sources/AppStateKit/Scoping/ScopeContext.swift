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

    init(parent: ScopeContext?, isolatedApplication: IsolatedApplication?, overrides: [EntryKey: any Sendable]) {
        self.parent = parent
        self.isolatedApplication = isolatedApplication ?? parent?.isolatedApplication
        self.overrides = overrides
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

    /// The innermost override of `key` in this scope or its parents.
    func overriddenValue(for key: EntryKey) -> (any Sendable)? {
        var context: ScopeContext? = self
        while let scope = context {
            if let value = scope.overrides[key] { return value }
            context = scope.parent
        }
        return nil
    }
}
