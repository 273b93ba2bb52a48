extension Application {
    /// Removes the entry of a state, stored state or file state from the application serving the
    /// calling task, freeing its memory; returns whether an entry was removed.
    ///
    /// Use it for entries named at run time — a per-request or per-session id — so that a
    /// long-running process doesn't keep one entry per id it ever used:
    ///
    /// ```swift
    /// extension Application {
    ///     subscript(session id: String) -> State<Session?> { state(initial: nil, feature: "Session", id: id) }
    /// }
    ///
    /// Application.state(\.[session: id]).value = session
    /// // … when the session ends:
    /// Application.remove(\.[session: id])
    /// ```
    ///
    /// The next access through any declaration of the entry creates it afresh from its initial
    /// value. Handles taken before the removal stay valid but are detached: they read and write
    /// the removed entry, which nothing else sees any more. A stored or file state's persisted
    /// value is left as it is (``reset(_:)`` deletes it); only the in-memory entry goes.
    ///
    /// The declaration is evaluated to find the entry, so an entry that doesn't exist yet is
    /// created (its initial value evaluated) and removed at once. A declaration whose id is new
    /// on every evaluation (`id: UUID().uuidString`) names a different entry each time: remove
    /// such an entry through its handle with ``remove(state:)``.
    @discardableResult
    public static func remove<S: MutableApplicationState>(_ keyPath: KeyPath<Application, S>) -> Bool {
        remove(state: current[keyPath: keyPath])
    }

    /// Removes the entry `handle` refers to from the application serving the calling task,
    /// freeing its memory; returns whether it was removed (`false` if it already was, or belongs
    /// to another application).
    ///
    /// ```swift
    /// extension Application {
    ///     var scratch: State<[String]> { state(initial: [], id: UUID().uuidString) }
    /// }
    ///
    /// var scratch = Application.state(\.scratch)   // a new entry on every evaluation
    /// scratch.value.append("draft")
    /// Application.remove(state: scratch)           // frees it; `scratch` keeps working, detached
    /// ```
    ///
    /// Handles of ``State``, ``StoredState`` and ``FileState`` are registry entries; for any other
    /// conforming type this does nothing and returns `false`. See ``remove(_:)`` for what
    /// removing means.
    @discardableResult
    public static func remove<S: MutableApplicationState>(state handle: S) -> Bool {
        guard let entry = (handle as? any EntryBacked)?.registryEntry else { return false }
        return current.registry.remove(entry)
    }

    /// Removes a dependency's entry from the application serving the calling task; returns
    /// whether an entry was removed.
    ///
    /// ```swift
    /// Application.remove(dependency: \.[tenantClient: tenantID])
    /// ```
    ///
    /// The next access runs the factory again. Instances already handed out, and global
    /// overrides of the removed entry, are unaffected and no longer reach anyone resolving the
    /// key path. The declaration is evaluated outside scoped overrides to find the entry, so a
    /// dependency that doesn't exist yet is created (its factory runs) and removed at once.
    @discardableResult
    public static func remove<Value: Sendable>(dependency keyPath: KeyPath<Application, Dependency<Value>>) -> Bool {
        let application = current
        return application.registry.remove(application.registryEntry(of: keyPath))
    }
}
