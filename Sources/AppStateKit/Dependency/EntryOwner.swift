/// The application a persisted entry belongs to, handed to the entry when it is created.
///
/// A persisted entry (StoredState, FileState, SyncState) reaches its collaborators — the
/// `\.userDefaults` store, the `\.fileManager` (an isolated application's sandbox), the
/// `\.logger` — through its owner and never through `Application.current`, so a handle acts on
/// the application that created it wherever it is used: a handle taken inside an isolation scope
/// keeps using the isolated application after the scope, and a handle of the shared application
/// used inside an isolation scope keeps using the shared one — exactly as a `State` handle does.
///
/// The owner resolves a collaborator on every call, like any dependency read: a
/// ``Application/promote(_:with:)`` or global ``Application/override(_:with:)`` of that
/// application changes where its existing entries read and write, and a scoped
/// ``Application/withOverrides(_:operation:)-(_,()->R)`` of the calling task applies too, as it
/// does to every dependency that task resolves in any application. An entry may keep what it
/// resolved in a ``DependencyMemo`` (``memoized(_:)``): it answers only while none of those
/// changes happened, so the rule holds while a read skips the lookup.
///
/// Lifetime: the registry owns its entries and each entry owns its owner, so the owner refers to
/// the registry weakly (no cycle; an isolated application is freed once nothing uses it). Every
/// path to an entry keeps the registry alive: handles hold the calling thread's memo slot, whose
/// owner is the registry, and ``Application/description`` walks the registry itself.
///
/// ```swift
/// let entry = registry.slot(for: key) { MyEntry(key: $0, owner: EntryOwner(self)) }
/// // in the entry, at each access:
/// let store = owner.dependency(\.userDefaults)
/// ```
final class EntryOwner: Sendable {
    private weak let registry: Registry?
    /// The registry's identity number, so the common case — the entry used in its own
    /// application — is recognised without loading the weak reference.
    fileprivate let registryIdentity: UInt64

    /// The owner for entries created in `application`'s registry.
    init(_ application: Application) {
        registry = application.registry
        registryIdentity = application.registry.identity
    }

    /// The owning application's current value of the dependency at `keyPath`.
    ///
    /// - Parameter entry: The entry asking, named if the application is gone (a broken invariant).
    @inline(__always)
    func dependency<Value: Sendable>(
        _ keyPath: KeyPath<Application, Application.Dependency<Value>>,
        for entry: @autoclosure () -> String = "an entry"
    ) -> Value {
        guard let value = dependencyIfAlive(keyPath) else {
            preconditionFailure("AppStateKit: \(entry()) was used after the application that owns it was released")
        }
        return value
    }

    /// The value `memo` holds, if it is still what the owner resolves for the calling task (see
    /// ``DependencyMemo``); otherwise `nil`, and the caller resolves with
    /// ``dependency(_:memo:for:transform:)``. Takes no key path: creating one costs more than
    /// the rest of the check.
    @inline(__always)
    func memoized<Value: Sendable>(_ memo: DependencyMemo<Value>) -> Value? {
        Application.withCurrent { current in
            // The memo only serves the entry's own application (the usual case).
            guard current.registry.identity == registryIdentity else { return nil }
            return memo.value(registryStamp: current.registry.stamp.load(ordering: .relaxed))
        }
    }

    /// ``dependency(_:for:)`` made `transform`ed, remembered in `memo` when the registry
    /// provided it (a value a scope provides is never memoised). A promotion, a global override
    /// or its cancellation, or a removal then makes ``memoized(_:)`` miss, and the caller
    /// resolves here again.
    func dependency<Dependency: Sendable, Value: Sendable>(
        _ keyPath: KeyPath<Application, Application.Dependency<Dependency>>,
        memo: DependencyMemo<Value>,
        for entry: @autoclosure () -> String,
        transform: (Dependency) -> Value
    ) -> Value {
        resolution(keyPath, memo: memo, for: entry(), transform: transform).value
    }

    /// The value ``dependency(_:memo:for:transform:)`` resolves, with the memo's resolution
    /// that vouches for it (`nil` when a scope provided the value, which is never memoised).
    /// Answers from `memo` when it is current. An entry used outside its own application (a
    /// handle of an application that doesn't serve the calling task) resolves in its owner's
    /// registry, as ``dependencyIfAlive(_:)`` does, and is memoised against that registry.
    func resolution<Dependency: Sendable, Value: Sendable>(
        _ keyPath: KeyPath<Application, Application.Dependency<Dependency>>,
        memo: DependencyMemo<Value>,
        for entry: @autoclosure () -> String,
        transform: (Dependency) -> Value
    ) -> (value: Value, resolution: DependencyMemo<Value>.Resolved?) {
        let served: (Value, DependencyMemo<Value>.Resolved?)? = Application.withCurrent { current in
            guard current.registry.identity == registryIdentity else { return nil }
            return Self.resolution(keyPath, in: current, memo: memo, transform: transform)
        }
        if let served { return served }
        guard let registry else {
            preconditionFailure("AppStateKit: \(entry()) was used after the application that owns it was released")
        }
        return Self.resolution(keyPath, in: Application(resolvingIn: registry), memo: memo, transform: transform)
    }

    /// ``resolution(_:memo:for:transform:)`` in `application`, the owner's.
    private static func resolution<Dependency: Sendable, Value: Sendable>(
        _ keyPath: KeyPath<Application, Application.Dependency<Dependency>>,
        in application: Application,
        memo: DependencyMemo<Value>,
        transform: (Dependency) -> Value
    ) -> (value: Value, resolution: DependencyMemo<Value>.Resolved?) {
        // Taken before the lookup: a removal after it moves the stamp and voids the memo.
        let stamp = application.registry.stamp.load(ordering: .relaxed)
        if let kept = memo.resolution(registryStamp: stamp) { return (kept.value, kept) }
        let handle = application[keyPath: keyPath]
        guard let dependencyEntry = handle.entry else { return (transform(handle.value), nil) }
        // The read above gave the entry a value; a cancelled override may have taken it since.
        // (Filled outside scopes: a scope's instance would not be the registry's.)
        let (box, version) = dependencyEntry.snapshot { _ = TaskContext.withoutOverrides { application[keyPath: keyPath] } }
        let value = transform(box.value)
        return (value, memo.remember(value, of: dependencyEntry, version: version, registryStamp: stamp))
    }

    /// The owning registry's stamp, or `nil` once the application was released: for a check of
    /// a memo's resolution made outside the owner's application (see ``DependencyMemo/Resolved/stillServes(_:)``).
    @inline(never)
    fileprivate func registryStampIfAlive() -> UInt64? {
        registry?.stamp.load(ordering: .relaxed)
    }

    /// The owning application's current value of the dependency at `keyPath`, or `nil` once the
    /// application was released — for work that may outlive every handle (a background feed),
    /// which should then stop. (Inlined, like `dependency`, so that a key-path literal at the
    /// call site becomes a direct property call.)
    @inline(__always)
    func dependencyIfAlive<Value: Sendable>(_ keyPath: KeyPath<Application, Application.Dependency<Value>>) -> Value? {
        let resolved: Value? = Application.withCurrent { current in
            // Usually the entry is used in its own application: resolve through it, allocating
            // nothing. (Identities are never reused, so an equal one means the same registry.)
            current.registry.identity == registryIdentity ? current[keyPath: keyPath].value : nil
        }
        if let resolved { return resolved }
        guard let registry else { return nil }
        return Application(resolvingIn: registry)[keyPath: keyPath].value
    }

    /// Reports `message` through the owning application's `\.logger`.
    func reportError(_ message: String) {
        dependency(\.logger).error(message)
    }
}

extension DependencyMemo.Resolved {
    /// Whether this resolution, taken from a memo of `owner`'s, is still what `owner` resolves
    /// for the calling task — the check of ``EntryOwner/memoized(_:)``, for a reader that kept
    /// the resolution next to what it read (and registers the same observation access).
    ///
    /// Used outside the owner's application (a handle of an application that doesn't serve
    /// the calling task), it checks against the owner's registry, which is where the entry
    /// resolves then (see ``EntryOwner/resolution(_:memo:for:transform:)``).
    @inline(__always)
    func stillServes(_ owner: EntryOwner) -> Bool {
        let currentStamp: UInt64? = Application.withCurrent { current in
            current.registry.identity == owner.registryIdentity ? current.registry.stamp.load(ordering: .relaxed) : nil
        }
        guard let stamp = currentStamp ?? owner.registryStampIfAlive() else { return false }
        return isCurrent(registryStamp: stamp)
    }
}
