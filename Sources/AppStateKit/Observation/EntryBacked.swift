/// A handle whose registry entry can be observed: ``Application/State``,
/// ``Application/StoredState`` and ``Application/FileState``.
protocol EntryBacked {
    var registryEntry: RegistryEntry { get }
}

extension Application.State: EntryBacked {
    var registryEntry: RegistryEntry { entry }
}

extension Application.StoredState: EntryBacked {
    var registryEntry: RegistryEntry { entry }
}

extension Application.FileState: EntryBacked {
    var registryEntry: RegistryEntry { entry }
}
