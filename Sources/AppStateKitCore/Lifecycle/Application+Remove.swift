extension Application {
    /// Removes the entry `handle` refers to — a ``State``, ``StoredState``, ``FileState``,
    /// ``SyncState`` or ``SecureState`` — from the application serving the calling task, freeing
    /// its memory; returns whether it was removed.
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
    /// Removing means the same for every kind: **the in-memory entry goes, and whatever the
    /// entry persisted stays** — a StoredState's key in its store, a FileState's file, a
    /// SyncState's key in the sync store, a SecureState's secret. The next access through any
    /// declaration of the entry creates it afresh, which reads the persisted value again (or
    /// starts from the initial value when nothing is persisted). Handles taken before the
    /// removal stay valid but are detached: they read and write the removed entry, which nothing
    /// else sees any more (a detached persisted entry still reads and writes the persisted
    /// value).
    ///
    /// To delete the persisted value instead, reset the entry: ``reset(_:)`` and each handle's
    /// `reset()` (failures reported through the logger), `resetDurably()` of a StoredState,
    /// FileState or SyncState (which wait and throw), a SecureState's `write(nil)` (which
    /// throws). To do both, reset first, then remove.
    ///
    /// Returns `false`, and says why through the application's logger, when nothing could be
    /// removed: as a debug message when the application serving the calling task has no such
    /// entry (it was removed already, or the handle was taken in another application), as an
    /// error when `handle` is a conforming type of your own, which is no registry entry.
    @discardableResult
    public static func remove<S: MutableApplicationState>(state handle: S) -> Bool {
        guard let entry = (handle as? any EntryBacked)?.registryEntry else {
            Application.logger.error(
                "AppStateKit: Application.remove(state:) removed nothing: \(S.self) is no registry entry; "
                    + "only State, StoredState, FileState, SyncState and SecureState handles can be removed"
            )
            return false
        }
        if current.registry.remove(entry) { return true }
        Application.logger.debug {
            "AppStateKit: Application.remove(state:) removed nothing: \(entry.kindName) \(entry.key.readable) "
                + "is not an entry of this application (it was removed already, or the handle was taken in another application)"
        }
        return false
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
