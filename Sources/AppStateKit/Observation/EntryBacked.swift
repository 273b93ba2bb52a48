/// A handle whose registry entry can be observed: ``Application/State``,
/// ``Application/StoredState``, ``Application/FileState`` and ``Application/SyncState``.
protocol EntryBacked {
    var registryEntry: any RegistryEntry { get }
}

extension Application.State: EntryBacked {
    var registryEntry: any RegistryEntry { entry }
}

extension Application.StoredState: EntryBacked {
    var registryEntry: any RegistryEntry { entry }
}

extension Application.FileState: EntryBacked {
    var registryEntry: any RegistryEntry { entry }
}

extension Application.SyncState: EntryBacked {
    var registryEntry: any RegistryEntry { entry }
}
