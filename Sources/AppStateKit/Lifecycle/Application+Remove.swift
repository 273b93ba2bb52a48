extension Application {
    /// Removes the entry `handle` — a state, stored state or file state — refers to from the
    /// application serving the calling task, freeing its memory; returns whether it was removed
    /// (`false` if it already was, or belongs to another application).
    ///
    /// Use it for entries named at run time — a per-request or per-session id — so that a
    /// long-running process doesn't keep one entry per id it ever used:
    ///
    /// ```swift
    /// extension Application {
    ///     subscript(session id: String) -> State<Session?> { state(initial: nil, feature: "Session", id: id) }
    /// }
    ///
    /// var session = Application.state(\.[session: id])
    /// session.value = newSession
    /// // … when the session ends:
    /// Application.remove(state: session)
    /// ```
    ///
    /// The next access through any declaration of the entry creates it afresh from its initial
    /// value. Handles taken before the removal stay valid but are detached: they read and write
    /// the removed entry, which nothing else sees any more. A stored or file state's persisted
    /// value is left as it is (``reset(_:)`` deletes it); only the in-memory entry goes. For a
    /// conforming type of your own, which is no registry entry, this does nothing and returns
    /// `false`.
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
