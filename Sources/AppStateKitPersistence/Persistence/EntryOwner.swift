import AppStateKitCore
/// The application a persisted entry (StoredState, FileState, SyncState) belongs to: the entry
/// reaches `\.userDefaults`, `\.fileManager` and `\.logger` through it, never through
/// `Application.current`, so a handle acts on the application that created it wherever it is used.
///
/// Every call resolves the collaborator, so promotions, global and scoped overrides apply; a read
/// may skip the lookup while a ``CollaboratorCheck`` of an earlier ``resolution(_:for:)`` holds.
///
/// Lifetime: the registry owns its entries and each entry owns its owner, so the owner refers to
/// the registry weakly (no cycle; an isolated application is freed once nothing uses it). Every
/// path to a persisted entry keeps the registry alive: its handles hold the registry beside the
/// entry, and ``Application/description`` walks the registry itself.
package final class EntryOwner: Sendable {
    private weak let registry: Registry?
    /// The registry's identity number, so the common case — the entry used in its own
    /// application — is recognised without loading the weak reference.
    private let registryIdentity: UInt64

    package init(_ application: Application) {
        registry = application.registry
        registryIdentity = application.registry.identity
    }

    /// The owning application's current value of the dependency at `keyPath`; `entry` is named
    /// if the application is gone (a broken invariant).
    @inline(__always)
    package func dependency<Value: Sendable>(
        _ keyPath: KeyPath<Application, Application.Dependency<Value>>,
        for entry: @autoclosure () -> String = "an entry"
    ) -> Value {
        guard let value = dependencyIfAlive(keyPath) else {
            preconditionFailure("AppStateKit: \(entry()) was used after the application that owns it was released")
        }
        return value
    }

    /// ``dependency(_:for:)`` with the ``CollaboratorCheck`` that tells a later read it would
    /// resolve the same value (`nil` when a scope provided the value). Outside its own
    /// application the entry resolves in, and is checked against, its owner's registry.
    func resolution<Value: Sendable>(
        _ keyPath: KeyPath<Application, Application.Dependency<Value>>,
        for entry: @autoclosure () -> String
    ) -> (value: Value, check: CollaboratorCheck?) {
        let served: (Value, CollaboratorCheck?)? = Application.withCurrent { current in
            current.registry.identity == registryIdentity ? Self.resolution(keyPath, in: current) : nil
        }
        if let served { return served }
        guard let registry else {
            preconditionFailure("AppStateKit: \(entry()) was used after the application that owns it was released")
        }
        return Self.resolution(keyPath, in: Application(resolvingIn: registry))
    }

    /// ``resolution(_:for:)`` in `application`, the owner's.
    private static func resolution<Value: Sendable>(
        _ keyPath: KeyPath<Application, Application.Dependency<Value>>,
        in application: Application
    ) -> (value: Value, check: CollaboratorCheck?) {
        // Taken before the lookup: a removal after it moves the stamp and voids the check.
        let stamp = application.registry.stamp.load(ordering: .relaxed)
        let handle = application[keyPath: keyPath]
        guard let dependencyEntry = handle.entry(in: application) else { return (handle.value, nil) }
        // The read above gave the entry a value; a cancelled override may have taken it since.
        // (Filled outside scopes: a scope's instance would not be the registry's.)
        let (instance, version) = dependencyEntry.snapshot { _ = TaskContext.withoutOverrides { application[keyPath: keyPath] } }
        let check = CollaboratorCheck(entry: dependencyEntry, version: dependencyEntry.version.view, seenVersion: version, registryStamp: stamp)
        return (instance, check)
    }

    /// The stamp of the registry a ``resolution(_:for:)`` made now would use, or `nil` once the
    /// application was released.
    @inline(__always)
    func currentRegistryStamp() -> UInt64? {
        let currentStamp: UInt64? = Application.withCurrent { current in
            current.registry.identity == registryIdentity ? current.registry.stamp.load(ordering: .relaxed) : nil
        }
        return currentStamp ?? registry?.stamp.load(ordering: .relaxed)
    }

    /// ``dependency(_:for:)``, or `nil` once the application was released: for work that may
    /// outlive every handle (a background feed), which should then stop.
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

    package func reportError(_ message: String) {
        dependency(\.logger).error(message)
    }
}

/// What tells a persisted entry that the collaborator it resolved through its ``EntryOwner`` is
/// still what the owner resolves, without resolving it again: the dependency entry's `version`
/// is unchanged (it moves on every promotion, global override, cancelled override and in-place
/// change), the owning registry's `stamp` is unchanged (it moves whenever any entry is removed,
/// so a re-created dependency is resolved again), and no scope of the calling task overrides
/// the dependency. A value a scope provides gets no check.
struct CollaboratorCheck: Sendable {
    /// The dependency entry, which owns the counter `version` reads.
    let entry: any RegistryEntry
    let version: AtomicWord.View
    /// The entry's version when the value was taken.
    let seenVersion: UInt64
    /// The owning registry's stamp before the entry was looked up.
    let registryStamp: UInt64

    /// Whether the resolution, made by `owner`, still holds for the calling task (outside the
    /// owner's application, against the owner's registry, where the entry resolves then).
    /// Registers an observation-tracking access of the dependency entry when it holds, so
    /// observers of the reading entry see the collaborator's changes.
    @inline(__always)
    func holds(for owner: EntryOwner) -> Bool {
        guard owner.currentRegistryStamp() == registryStamp, version.loadRelaxed() == seenVersion else { return false }
        // Asks the calling task's scope only if some live scope may override the entry.
        if !OverrideCensus.isEmpty, OverrideCensus.mayOverride(fastHash: entry.key.fastHash),
            TaskContext.currentOverrides?.find(entry.key) != nil {
            return false
        }
        entry.trackAccess()
        return true
    }
}

/// Keeps an object alive while a value holds it, without handing it out: a persisted handle's
/// application (so an isolated application outlives its scope while a handle of it exists).
@usableFromInline
package struct KeepAlive: @unchecked Sendable {
    // @unchecked: the object is never read, only retained, so it is never shared between threads.
    @usableFromInline let object: AnyObject

    @inlinable
    package init(_ object: AnyObject) {
        self.object = object
    }
}
