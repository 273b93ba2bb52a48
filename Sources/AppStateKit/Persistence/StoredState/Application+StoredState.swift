extension Application {
    /// A handle to a small value persisted in a key-value store (the `UserDefaults` model).
    ///
    /// ```swift
    /// extension Application {
    ///     var port: StoredState<Int> { storedState(initial: 8080, id: "port") }
    /// }
    ///
    /// var port = Application.storedState(\.port)
    /// port.value = 9090          // on disk when this returns
    /// ```
    ///
    /// The store key is `"<feature>/<id>"`. Property-list values are stored natively,
    /// `RawRepresentable` values as their raw value, anything else as JSON data. The initial
    /// value is never written: until you assign, reads return it and the store stays untouched.
    /// A stored value that can't be decoded reads as the initial value, is reported through the
    /// logger, and is left as it is until the next assignment; ``read()`` throws instead.
    public struct StoredState<Value: Codable & Sendable>: MutableApplicationState, Sendable {
        let entry: StoredStateEntry<Value>

        init(entry: StoredStateEntry<Value>) {
            self.entry = entry
        }

        /// The stored value, or the initial value when nothing (usable) is stored.
        /// Setting it writes through to the store; for an optional, `nil` removes the key.
        ///
        /// A mutation in place (`count.value += 1`) reads, mutates and writes as one step in this
        /// process, holding the entry's lock throughout; it must not touch the same entry.
        public var value: Value {
            get { entry.valueOutsideModification }
            set { entry.assign(newValue) }
            _modify {
                let inPlace = entry.inPlace
                yield &inPlace.value
            }
        }

        /// Removes the stored value, so reads return the initial value.
        public func reset() {
            do {
                try entry.remove()
            } catch {
                entry.report(error)
            }
        }

        /// Reads the stored value, throwing instead of falling back to the initial value.
        ///
        /// - Throws: ``PersistenceError`` when the store can't be read (`corruptData`, I/O
        ///   kinds) or holds a value of another type (`typeMismatch`).
        public func read() throws -> Value {
            try entry.read()
        }

        /// Writes `newValue`, throwing when it can't be stored.
        ///
        /// - Throws: ``PersistenceError`` (`encodingFailed`, `permissionDenied`,
        ///   `readOnlyFileSystem`, `diskFull`, …); the stored value is then unchanged.
        public func write(_ newValue: Value) throws {
            try entry.write(newValue)
        }

        /// The key the value is stored under: `"<feature>/<id>"`.
        public var storageKey: String { entry.storageKey }

        /// The entry's identity as AppState exposes it.
        public var scope: Scope { entry.key.name.scope }
    }

    /// Declares a persisted value named by `feature` and `id`, stored in the `\.userDefaults`
    /// store (or in `store`, when given).
    ///
    /// ```swift
    /// extension Application {
    ///     var theme: StoredState<String> { storedState(initial: "light", feature: "Settings", id: "theme") }
    ///     var legacy: StoredState<Int> {
    ///         storedState(initial: 0, id: "legacy", store: UserDefaultsStore(UserDefaults(suiteName: "old")!))
    ///     }
    /// }
    /// ```
    public func storedState<Value: Codable & Sendable>(
        initial: @escaping @autoclosure () -> Value,
        feature: String = "App",
        id: String,
        store: (any UserDefaultsManaging)? = nil
    ) -> StoredState<Value> {
        let key = EntryKey(kind: .storedState, valueType: Value.self, name: EntryName(feature: feature, id: id))
        let entry = registry.entry(for: key) {
            Application.announcingCreation(StoredStateEntry(key: key, storageKey: "\(feature)/\(id)", initial: initial(), store: store))
        }
        return StoredState(entry: entry)
    }

    /// Declares an optional persisted value named by `feature` and `id`; `nil` until assigned,
    /// and assigning `nil` removes it from the store.
    public func storedState<Value: Codable & Sendable>(
        feature: String = "App",
        id: String,
        store: (any UserDefaultsManaging)? = nil
    ) -> StoredState<Value?> {
        storedState(initial: nil, feature: feature, id: id, store: store)
    }

    /// Returns the handle of a stored state.
    public static func storedState<Value: Codable & Sendable>(
        _ keyPath: KeyPath<Application, StoredState<Value>>
    ) -> StoredState<Value> {
        current[keyPath: keyPath]
    }

    /// Removes a stored state's value, so it reads as its initial value again.
    public static func reset<Value: Codable & Sendable>(storedState keyPath: KeyPath<Application, StoredState<Value>>) {
        current[keyPath: keyPath].reset()
    }

    /// The store ``StoredState`` entries use unless they name their own: a durable
    /// ``FileKeyValueStore`` at ``FileKeyValueStore/defaultPath``. Promote or override it to use
    /// a `UserDefaults` suite (``UserDefaultsStore``), an in-memory store or your own.
    public var userDefaults: Dependency<any UserDefaultsManaging> {
        dependency(FileKeyValueStore(path: FileKeyValueStore.defaultPath), feature: "AppStateKit", id: "userDefaults")
    }
}
