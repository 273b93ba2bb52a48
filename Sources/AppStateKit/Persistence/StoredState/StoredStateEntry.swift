/// The registry entry behind an ``Application/StoredState``: its storage key, its initial value
/// and, optionally, its own store. The value itself always lives in the store, so a value
/// written by plain `UserDefaults` code or another process is what the next read returns.
final class StoredStateEntry<Value: Codable & Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `lastReported` is only accessed while `lock` is held; everything else is immutable.
    let storageKey: String
    let initial: Value
    let store: (any UserDefaultsManaging)?
    private let lock = Lock()
    private var lastReported: String?
    /// Held while the value is written or mutated in place (see `PersistedEntry`).
    let modification = ModificationLock()

    init(key: EntryKey, storageKey: String, initial: Value, store: (any UserDefaultsManaging)?) {
        self.storageKey = storageKey
        self.initial = initial
        self.store = store
        super.init(key: key)
    }

    override var kindName: String { "StoredState" }
    override var valueTypeName: String { String(reflecting: Value.self) }
    override var valueDescription: String { String(describing: value) }

    /// The store in use: the entry's own, or the current `\.userDefaults` dependency.
    var activeStore: any UserDefaultsManaging {
        store ?? Application.dependency(\.userDefaults)
    }

    /// The stored value, or the initial value when nothing is stored.
    func read() throws -> Value {
        trackAccess()
        let store = activeStore
        guard let object = try store.readObject(forKey: storageKey) else { return initial }
        return try StoredValueCodec.decode(object, as: Value.self, key: storageKey, store: store)
    }

    /// Stores `newValue` (removing the key for `nil`).
    func write(_ newValue: Value) throws {
        let object = try StoredValueCodec.encode(newValue, key: storageKey)
        try notifyingObservers {
            try activeStore.writeObject(object, forKey: storageKey)
        }
    }

    /// Removes the stored value so reads return the initial value again.
    func remove() throws {
        try notifyingObservers {
            try activeStore.writeObject(nil, forKey: storageKey)
        }
    }

    /// The value, or the initial value after reporting why the stored one can't be used.
    var value: Value {
        do {
            let value = try read()
            lock.withLock { lastReported = nil }
            return value
        } catch {
            report(error)
            return initial
        }
    }

    /// Reports `error` through the logger, once per distinct message in a row.
    func report(_ error: any Error) {
        let message = "AppStateKit: \(error)"
        let isNew = lock.withLock {
            defer { lastReported = message }
            return lastReported != message
        }
        if isNew { Application.logger.error(message) }
    }
}
