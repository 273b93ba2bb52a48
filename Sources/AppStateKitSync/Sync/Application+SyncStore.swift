import AppStateKitCore
import AppStateKitPersistence
extension Application {
    /// The store ``SyncState`` values live in.
    ///
    /// By default a ``LocalSyncStore`` at ``LocalSyncStore/defaultPath``, shared by the app's
    /// processes on this machine. Install another store once at launch,
    /// before or after SyncStates are first used (their caches switch to the new store):
    ///
    /// ```swift
    /// Application.promote(\.syncStore, with: store)
    /// ```
    ///
    /// An isolated application gets its own ``InMemorySyncStore`` (the default store is then never
    /// created). SyncStates resolve this dependency through the application that created them
    /// and ignore task-local overrides (`withOverrides`, the `.overriding` trait): each entry keeps
    /// one cache, fed by one store. Use an isolated application and `promote` inside it instead.
    public var syncStore: Dependency<any SyncStore> {
        dependency(key: Application.syncStoreKey) {
            let store = LocalSyncStore(path: LocalSyncStore.defaultPath)
            return UnisolatedPersistenceNotice.noted(store, uses: "the real SyncState store \(store.path)")
        }
    }

    /// The key of ``syncStore``.
    @usableFromInline
    static var syncStoreKey: EntryKey {
        EntryKey(kind: .dependency, valueType: (any SyncStore).self, name: EntryName(feature: "AppStateKit", id: "syncStore"))
    }

    /// Gives `application` (a new isolated one) a private ``InMemorySyncStore`` without running
    /// the default store's factory, so an isolated application never opens the real store.
    package static func installIsolatedSyncStore(in application: Application) {
        let key = syncStoreKey
        _ = application.registry.entry(for: key) { DependencyEntry<any SyncStore>(key: key, value: InMemorySyncStore()) }
    }
}
