#if Configuration
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation

/// A ``AppStateKit/UserDefaultsManaging`` store that can list its keys, which
/// ``KeyValueStoreConfigProvider`` needs to take a snapshot of a namespace.
///
/// ``AppStateKit/FileKeyValueStore`` (the default StoredState store on Linux),
/// ``AppStateKit/InMemoryDefaults`` and ``AppStateKit/UserDefaultsStore`` conform; a store of
/// your own conforms by listing its keys.
public protocol ListableKeyValueStore: UserDefaultsManaging {
    /// Every key the store holds.
    ///
    /// - Throws: When the store can't be read.
    var keys: [String] { get throws }
}

extension FileKeyValueStore: ListableKeyValueStore {}

extension InMemoryDefaults: ListableKeyValueStore {}

extension UserDefaultsStore: ListableKeyValueStore {
    /// Every key of the wrapped defaults' `dictionaryRepresentation()`, sorted.
    public var keys: [String] {
        defaults.dictionaryRepresentation().keys.sorted()
    }
}
#endif
