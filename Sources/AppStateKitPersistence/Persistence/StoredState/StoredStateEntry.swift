import AppStateKitCore
import Foundation

/// The registry entry behind an ``Application/StoredState``. The value lives in the store, so
/// what plain `UserDefaults` code or another process wrote is what the next read returns.
///
/// A read from a ``FileKeyValueStore`` keeps the value it decoded; the next read returns it
/// after one lock while ``StoredReadCheck`` vouches for it. Other stores are asked on every read.
@usableFromInline
final class StoredStateEntry<Value: Codable & Sendable>: PersistedEntry {
    @usableFromInline let core: EntryCore
    let modification = ModificationLock()
    let reports = FailureReports()
    let initial: Value
    let owner: EntryOwner
    let storageKey: String
    /// The key earlier versions used (see ``StoredStateKey``).
    let legacyKey: String?
    let store: (any UserDefaultsManaging)?
    /// What the last read from a ``FileKeyValueStore`` decoded, and what vouches for it.
    private let kept: KeptRead<StoredReadCheck, Value>

    init(key: EntryKey, feature: String, id: String, initial: Value, store: (any UserDefaultsManaging)?, owner: EntryOwner) {
        core = EntryCore(key: key)
        self.initial = initial
        self.owner = owner
        self.storageKey = StoredStateKey.key(feature: feature, id: id)
        self.legacyKey = StoredStateKey.legacyKey(feature: feature, id: id)
        self.store = store
        self.kept = KeptRead(StoredReadCheck(), initial)
    }

    @usableFromInline var kindName: String { "StoredState" }
    @usableFromInline var valueTypeName: String { reflectedTypeName(Value.self) }
    @usableFromInline var valueDescription: String { String(describing: value) }

    /// The entry's own store, or its application's `\.userDefaults`.
    var activeStore: any UserDefaultsManaging {
        store ?? owner.dependency(\.userDefaults, for: "StoredState \(storageKey)")
    }

    /// The stored object and the key it was found under: `storageKey`, or the legacy key while
    /// nothing is stored under `storageKey`.
    func storedObject(in store: any UserDefaultsManaging) throws -> (object: Any?, key: String) {
        if let object = try store.readObject(forKey: storageKey) { return (object, storageKey) }
        if let legacyKey, let object = try store.readObject(forKey: legacyKey) { return (object, legacyKey) }
        return (nil, storageKey)
    }

    @usableFromInline func read() throws -> Value {
        trackAccess()
        var value = initial
        let isKept = kept.withLock { check, kept in
            guard check.holds(for: owner) else { return false }
            value = kept
            return true
        }
        if isKept { return value }
        return try readFromStore()
    }

    /// The rest of ``read()``: resolves the store and asks it.
    private func readFromStore() throws -> Value {
        let (store, collaborator) = store.map { ($0, nil) } ?? owner.resolution(\.userDefaults, for: "StoredState \(storageKey)")
        if let fileStore = store as? FileKeyValueStore {
            return try readAndKeep(from: fileStore, collaborator: collaborator)
        }
        let (object, key) = try storedObject(in: store)
        return try object.map { try StoredValueCodec.decode($0, as: Value.self, key: key, store: store) } ?? initial
    }

    /// A read from a file store: the stored value, decoded and kept for the next read unless it
    /// came from a scope's `\.userDefaults` (no ``CollaboratorCheck`` vouches for that).
    private func readAndKeep(from fileStore: FileKeyValueStore, collaborator: CollaboratorCheck?) throws -> Value {
        // The validity of the first read covers the legacy key's too: anything that changed in
        // between moved the store on, and the next read decodes again.
        var object: Any?
        var validity: FileKeyValueStore.ReadValidity
        do {
            (object, validity) = try fileStore.readObjectForReuse(forKey: storageKey)
        } catch {
            return try untaggedValue(readFailure: error, in: fileStore)
        }
        var key = storageKey
        if object == nil, let legacyKey {
            object = try fileStore.readObject(forKey: legacyKey)
            key = legacyKey
        }
        let value = try object.map { try StoredValueCodec.decode($0, as: Value.self, key: key, store: fileStore) } ?? initial
        guard store != nil || collaborator != nil else { return value }
        var replaced = value
        kept.withLock { check, kept in
            check = StoredReadCheck(store: fileStore, validity: validity, collaborator: collaborator)
            swap(&kept, &replaced)
        }
        return value
    }

    /// The value of an entry a ``FileKeyValueStore`` holds without a type tag (edited in by hand,
    /// `{"App/counter": 7}`) when its JSON decodes as `Value`; otherwise throws `readFailure`,
    /// the error reading the entry failed with. The next write stores it tagged.
    private func untaggedValue(readFailure: any Error, in store: any UserDefaultsManaging) throws -> Value {
        guard let fileStore = store as? FileKeyValueStore, let json = fileStore.untaggedJSON(forKey: storageKey) else {
            throw readFailure
        }
        do {
            return try JSONCoders.decode(Value.self, from: json)
        } catch {
            throw readFailure
        }
    }

    @usableFromInline func writeValue(_ newValue: Value) throws {
        try persist(try StoredValueCodec.encode(newValue, key: storageKey))
    }

    @usableFromInline func removeValue() throws {
        try persist(nil)
    }

    /// Stores `object`; for `nil`, removes the key and the legacy key's value, if any, so it
    /// can't reappear as a fallback. Callers notify observers, outside ``modification``.
    private func persist(_ object: Any?) throws {
        let store = activeStore
        try store.writeObject(object, forKey: storageKey)
        if object == nil, let legacyKey, try store.readObject(forKey: legacyKey) != nil {
            try store.writeObject(nil, forKey: legacyKey)
        }
    }

    /// A compare-and-set loop: `body` runs with no lock held, and its result is stored only if
    /// the stored value is still the one it started from, compared and written under the file
    /// store's `flock` (atomic across processes) or ``LocalStoreUpdates/lock``. After a read error
    /// reported to `storeFailure`, `body` runs on the initial value and nothing is written.
    @usableFromInline func update<Result>(
        _ body: (inout Value) throws -> Result,
        storeFailure: (any Error) throws -> Void
    ) rethrows -> Result {
        let store = activeStore
        while true {
            var expected: Any?
            var value = initial
            var isUnreadable = false
            do {
                let stored = try storedObject(in: store)
                // A legacy value is moved under the new key: nothing is stored there yet.
                expected = stored.key == storageKey ? stored.object : nil
                if let object = stored.object {
                    value = try StoredValueCodec.decode(object, as: Value.self, key: stored.key, store: store)
                }
            } catch {
                do {
                    // A hand-edited untagged value: replaced as if nothing were stored.
                    value = try untaggedValue(readFailure: error, in: store)
                    expected = nil
                } catch {
                    try storeFailure(changeNotWritten(error))
                    isUnreadable = true
                }
            }
            let result = try body(&value)
            if isUnreadable { return result }
            do {
                let object = try StoredValueCodec.encode(value, key: storageKey)
                let swapped = try notifyingObservers {
                    try modification.withLock(self) {
                        try Self.replace(storageKey, in: store, ifStillEqualTo: expected, with: object)
                    }
                }
                if swapped { return result }
            } catch {
                try storeFailure(error)
                return result
            }
        }
    }

    private static func replace(_ key: String, in store: any UserDefaultsManaging, ifStillEqualTo expected: Any?, with object: Any?) throws -> Bool {
        if let fileStore = store as? FileKeyValueStore {
            return try fileStore.replaceValue(forKey: key, ifEqualTo: expected, with: object)
        }
        return try LocalStoreUpdates.lock.withLock {
            let current = try store.readObject(forKey: key)
            guard try LocalStoreUpdates.same(current, expected, key: key) else { return false }
            try store.writeObject(object, forKey: key)
            return true
        }
    }
}

/// The compare-and-set of ``StoredStateEntry/update(_:storeFailure:)`` for stores that have none
/// of their own: comparisons and writes of every such update in the process take one lock.
enum LocalStoreUpdates {
    static let lock = Lock()

    /// Whether two stored objects hold the same property-list value (`nil` for none).
    static func same(_ current: Any?, _ expected: Any?, key: String) throws -> Bool {
        switch (current, expected) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (current?, expected?):
            guard let currentValue = PropertyListValue(current), let expectedValue = PropertyListValue(expected) else {
                throw PersistenceError(.typeMismatch, errno: nil, subject: key, key: key, path: nil, detail: "the stored \(type(of: current)) is not a property-list value, so update can't compare it")
            }
            return PropertyListValue.same(currentValue, expectedValue)
        }
    }
}

/// What vouches for the value a ``StoredStateEntry`` kept from its last read of a
/// ``FileKeyValueStore`` (none: no store): the store's validity then and, for an entry using
/// `\.userDefaults`, the ``CollaboratorCheck`` that the same store would be resolved.
struct StoredReadCheck {
    var store: FileKeyValueStore?
    var validity: FileKeyValueStore.ReadValidity?
    /// `nil` for the entry's own store, which needs no resolution.
    var collaborator: CollaboratorCheck?

    /// Whether the kept value is what a read by `owner`'s entry returns for the calling task.
    @inline(__always)
    func holds(for owner: EntryOwner) -> Bool {
        guard store?.isUnchanged(since: validity) == true else { return false }
        return collaborator?.holds(for: owner) ?? true
    }
}

extension StoredStateEntry: DescribesLocation {
    package var locationDescription: String {
        let location: String = switch activeStore {
        case let file as FileKeyValueStore: file.path
        case is InMemoryDefaults: "memory"
        case let other: String(describing: type(of: other))
        }
        return "\(key.readable) (\(storageKey) in \(location))"
    }
}
