import AppStateKitCore
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
    /// The handle acts on the application it was taken from — used after an isolation scope
    /// ended, or inside another one, it still reads and writes that application's store.
    ///
    /// The store key is ``storageKey``. Property-list values are stored natively,
    /// `RawRepresentable` values as their raw value, anything else as JSON data. The initial
    /// value is never written. A stored value that can't be decoded reads as the initial value,
    /// is reported through the logger, and is kept until the next assignment; ``read()`` throws
    /// instead.
    public struct StoredState<Value: Codable & Sendable>: MutableApplicationState, Sendable {
        @usableFromInline let entry: StoredStateEntry<Value>
        @usableFromInline let application: KeepAlive

        @inlinable
        init(entry: StoredStateEntry<Value>, application: Application) {
            self.entry = entry
            self.application = KeepAlive(application)
        }

        /// The stored value, or the initial value when nothing (usable) is stored.
        /// Setting it writes through to the store; for an optional, `nil` removes the key.
        ///
        /// A mutation in place (`count.value += 1`) reads, mutates and writes as one step in this
        /// process, holding the entry's lock throughout; it must not touch the same entry.
        public var value: Value {
            get { entry.handleValue }
            set { entry.handleValue = newValue }
            _modify { yield &entry.handleValue }
        }

        /// Removes the stored value, so reads return the initial value; a failure is reported
        /// through the logger (``resetDurably()`` throws it). The entry stays in the application:
        /// ``Application/remove(state:)`` drops the in-memory entry and keeps the stored value.
        public func reset() {
            entry.resetReportingFailure()
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

        /// Reads, changes and writes the value as one atomic step, throwing instead of reporting
        /// (see `Application.update(_:_:)`; `body` may run more than once).
        ///
        /// - Throws: `body`'s error, or ``PersistenceError`` when the stored value can't be read,
        ///   decoded or written (the store is then unchanged).
        @discardableResult
        public func update<Result>(_ body: (inout Value) throws -> Result) throws -> Result {
            try entry.updateThrowing(body)
        }

        /// Reads, changes and writes the value as one atomic step, reporting store failures
        /// through the logger; the same as `Application.update(_:_:)`.
        @discardableResult
        public mutating func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            try entry.updateReportingFailure(body)
        }

        /// The key the value is stored under: `"<feature>/<id>"`, a feature's `/` and `%` escaped
        /// as `%2F` and `%25` (see Persistence.md for keys earlier versions wrote).
        public var storageKey: String { entry.storageKey }
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
    @inlinable
    public func storedState<Value: Codable & Sendable>(
        initial: @escaping @autoclosure () -> Value,
        feature: String = "App",
        id: String,
        store: (any UserDefaultsManaging)? = nil
    ) -> StoredState<Value> {
        let entry = registry.entry(for: EntryKey(kind: .storedState, valueType: Value.self, feature: feature, id: id), as: StoredStateEntry<Value>.self) {
            makeStoredStateEntry(key: $0, feature: feature, id: id, initial: initial(), store: store)
        }
        return StoredState(entry: entry, application: self)
    }

    /// Creates the entry behind ``storedState(initial:feature:id:store:)`` on first access.
    @usableFromInline
    func makeStoredStateEntry<Value: Codable & Sendable>(
        key: EntryKey, feature: String, id: String, initial: Value, store: (any UserDefaultsManaging)?
    ) -> any RegistryEntry {
        Application.announcingCreation(
            StoredStateEntry(key: key, feature: feature, id: id, initial: initial, store: store, owner: EntryOwner(self))
        )
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
    @inlinable @inline(__always)
    public static func storedState<Value: Codable & Sendable>(
        _ keyPath: KeyPath<Application, StoredState<Value>>
    ) -> StoredState<Value> {
        withCurrent { $0[keyPath: keyPath] }
    }

    /// Removes a stored state's value, so it reads as its initial value again.
    public static func reset<Value: Codable & Sendable>(storedState keyPath: KeyPath<Application, StoredState<Value>>) {
        current[keyPath: keyPath].reset()
    }

    /// The store ``StoredState`` entries use unless they name their own: a durable
    /// ``FileKeyValueStore`` at ``FileKeyValueStore/defaultPath``. Promote or override it to use
    /// a `UserDefaults` suite (``UserDefaultsStore``), an in-memory store or your own.
    public var userDefaults: Dependency<any UserDefaultsManaging> {
        dependency(UnisolatedPersistenceNotice.noted(FileKeyValueStore(path: FileKeyValueStore.defaultPath)), feature: Self.userDefaultsName.feature, id: Self.userDefaultsName.id)
    }

    /// The name of the `\.userDefaults` dependency (an isolated application creates it without
    /// evaluating the default store's path).
    package static let userDefaultsName = (feature: "AppStateKit", id: "userDefaults")
}

extension Application.StoredState: EntryBacked {
    package var registryEntry: any RegistryEntry { entry }
}
