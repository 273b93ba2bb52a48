extension Application {
    /// The store ``SyncState`` values live in.
    ///
    /// By default a process-local ``InMemorySyncStore``. Install another store once at launch,
    /// before or after SyncStates are first used (their caches switch to the new store):
    ///
    /// ```swift
    /// Application.promote(\.syncStore, with: store)
    /// ```
    ///
    /// An isolated application gets its own ``InMemorySyncStore``. SyncStates resolve this
    /// dependency through the application that created them and ignore task-local overrides
    /// (`withOverrides`, the `.overriding` trait): each entry keeps one cache, fed by one store.
    /// Use an isolated application and `promote` inside it instead.
    public var syncStore: Dependency<any SyncStore> {
        dependency(InMemorySyncStore(), feature: "AppStateKit", id: "syncStore")
    }
}
