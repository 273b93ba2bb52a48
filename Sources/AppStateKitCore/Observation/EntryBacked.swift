/// A handle whose registry entry can be observed: ``Application/State`` here, and
/// ``Application/StoredState``, ``Application/FileState`` and ``Application/SyncState`` in the
/// modules that define them.
package protocol EntryBacked {
    var registryEntry: any RegistryEntry { get }
}

extension Application.State: EntryBacked {
    package var registryEntry: any RegistryEntry { entry }
}
