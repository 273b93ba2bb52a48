#if Configuration
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSecrets
import AppStateKitSync
import Configuration

/// The configuration values of one namespace of a store, held in memory, and who watches them:
/// what both providers answer `value`, `snapshot` and `watch…` from without I/O.
///
/// The providers feed it: the sync provider from its store's snapshot and change feed, the
/// key-value provider from polls of its store; each provider's own writes go in at once.
final class ConfigMirror: Sendable, CustomReflectable {
    /// A key as the mirror holds it: its value (`nil`: removed, kept so that an older record
    /// can't bring the value back) and the store's version of it (0 for stores without
    /// versions).
    struct Entry: Sendable, Equatable {
        var value: StoredConfigValue?
        var version: Int64
    }

    /// How an incoming value is weighed against the one held.
    enum Precedence {
        /// It replaces the held value only when its version is higher (a change feed, which may
        /// repeat or reorder records).
        case newerVersion
        /// It replaces the held value whatever the versions (a read of the store itself).
        case authoritative
    }

    private struct Storage {
        var entries: [String: Entry]
        /// The problems reported, so each is reported once until its key changes.
        var reported: [String: String] = [:]
        var valueWatchers: [String: [UInt64: AsyncStream<StoredConfigValue?>.Continuation]] = [:]
        var snapshotWatchers: [UInt64: AsyncStream<StoreConfigSnapshot>.Continuation] = [:]
        var nextWatcher: UInt64 = 0
    }

    let providerName: String
    let namespace: ConfigNamespace
    let secrets: SecretsSpecifier<String, ConfigContent>
    /// The `\.logger` of the application that created the provider: a stored value that can't
    /// be read as asked, or a damaged record, is reported there, not only thrown (a
    /// `ConfigReader`'s `int(forKey:default:)` would otherwise return the default in silence).
    let logger: ApplicationLogger
    private let storage: LockedBox<Storage>

    init(
        providerName: String, namespace: ConfigNamespace, secrets: SecretsSpecifier<String, ConfigContent>, entries: [String: Entry],
        logger: ApplicationLogger
    ) {
        self.providerName = providerName
        self.namespace = namespace
        self.secrets = secrets
        self.logger = logger
        self.storage = LockedBox(Storage(entries: entries))
    }

    /// Reports `problem` about `storeKey` through ``logger``, unless it is the one reported
    /// last for that key (a reader asking every second reports it once).
    func report(_ problem: String, storeKey: String) {
        let isNew = storage.withLock { storage in
            defer { storage.reported[storeKey] = problem }
            return storage.reported[storeKey] != problem
        }
        if isNew { logger.error(problem) }
    }

    /// The provider's name and the keys held, never a value.
    var customMirror: Mirror {
        Mirror(self, children: ["providerName": providerName, "keys": storeKeys.sorted()], displayStyle: .class)
    }

    // MARK: Reading

    /// The held value of `key` as `type`.
    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let storeKey = namespace.storeKey(key)
        let held = storage.withLock { $0.entries[storeKey]?.value ?? nil }
        return try lookup(held, key: key, storeKey: storeKey, type: type)
    }

    /// `value` read as `type` for `key`.
    ///
    /// - Throws: ``ConfigStoreError`` naming the store key when the value is not a `type`.
    func lookup(_ value: StoredConfigValue?, key: AbsoluteConfigKey, storeKey: String, type: ConfigType) throws -> LookupResult {
        guard let value else { return LookupResult(encodedKey: storeKey, value: nil) }
        guard let content = value.content(as: type) else {
            let error = switch value {
            case .unreadable, .unsupported:
                ConfigStoreError(.unreadable, key: storeKey, detail: "the stored value is \(value.kind), which no configuration type reads")
            default:
                ConfigStoreError(.typeMismatch, key: storeKey, detail: "the stored value is \(value.kind), which does not read as \(type.rawValue)")
            }
            report(
                "AppStateKitConfiguration: \(error); \(providerName) answers with an error, so a reader with a default uses the default. "
                    + "Write a \(type.rawValue) value for the key (setValue) or remove it",
                storeKey: storeKey
            )
            throw error
        }
        let dotted = ConfigNamespace.dotted(key)
        let isSecret = secrets.isSecret(key: dotted, value: content) || SecureStateDeclarations.declares(feature: namespace.name, id: dotted)
        return LookupResult(encodedKey: storeKey, value: ConfigValue(content, isSecret: isSecret))
    }

    /// Every held value, frozen.
    func snapshot() -> StoreConfigSnapshot {
        storage.withLock { makeSnapshot($0.entries) }
    }

    private func makeSnapshot(_ entries: [String: Entry]) -> StoreConfigSnapshot {
        StoreConfigSnapshot(mirror: self, values: entries.compactMapValues(\.value))
    }

    /// The held entry of a store key.
    func entry(of storeKey: String) -> Entry? {
        storage.withLock { $0.entries[storeKey] }
    }

    /// The held version of a store key (0: none).
    func version(of storeKey: String) -> Int64 {
        storage.withLock { $0.entries[storeKey]?.version ?? 0 }
    }

    /// Every held store key.
    var storeKeys: Set<String> {
        storage.withLock { Set($0.entries.keys) }
    }

    // MARK: Changing

    /// Applies `changes` by `precedence` and tells the watchers of every value that changed.
    func apply(_ changes: [String: Entry], precedence: Precedence) {
        storage.withLock { storage in
            var changedAny = false
            for (storeKey, incoming) in changes {
                let held = storage.entries[storeKey]
                if precedence == .newerVersion, let held, incoming.version <= held.version { continue }
                storage.entries[storeKey] = incoming
                // A re-read that finds the same value (the read a worker makes after subscribing,
                // a poll) keeps what was reported about it, so a problem is reported once.
                guard (held?.value ?? nil) != incoming.value else { continue }
                storage.reported[storeKey] = nil
                changedAny = true
                // Yielding buffers the value and resumes a waiting watcher's task (its code runs
                // later, never here); doing it under the lock keeps every watcher's order that of
                // the changes. The resumption takes the runtime's lock of that task, so no
                // cancellation or termination handler may take this lock: watchers leave in
                // their own task (`defer` below), never from a handler.
                for continuation in storage.valueWatchers[storeKey, default: [:]].values {
                    continuation.yield(incoming.value)
                }
            }
            guard changedAny, !storage.snapshotWatchers.isEmpty else { return }
            let snapshot = makeSnapshot(storage.entries)
            for continuation in storage.snapshotWatchers.values {
                continuation.yield(snapshot)
            }
        }
    }

    /// Replaces every held value with `entries` (a complete read of the namespace): keys not in
    /// it are removed.
    func replaceAll(with entries: [String: Entry]) {
        var changes = entries
        for storeKey in storeKeys where entries[storeKey] == nil {
            changes[storeKey] = Entry(value: nil, version: 0)
        }
        apply(changes, precedence: .authoritative)
    }

    // MARK: Watching

    /// Runs `handler` with the value of `key` now, then every change, until `handler` returns.
    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler handler: nonisolated(nonsending) (ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        let storeKey = namespace.storeKey(key)
        let (stream, continuation) = AsyncStream<StoredConfigValue?>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = storage.withLock { storage in
            let id = storage.nextWatcher
            storage.nextWatcher += 1
            storage.valueWatchers[storeKey, default: [:]][id] = continuation
            continuation.yield(storage.entries[storeKey]?.value ?? nil)
            return id
        }
        defer {
            storage.withLock { storage in
                storage.valueWatchers[storeKey]?[id] = nil
                if storage.valueWatchers[storeKey]?.isEmpty == true { storage.valueWatchers[storeKey] = nil }
            }
            continuation.finish()
        }
        let updates = stream.map { [self] value in
            Result { try self.lookup(value, key: key, storeKey: storeKey, type: type) }
        }
        return try await handler(ConfigUpdatesAsyncSequence(updates))
    }

    /// Runs `handler` with a snapshot now, then one after every change, until `handler` returns.
    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler handler: nonisolated(nonsending) (ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        let (stream, continuation) = AsyncStream<StoreConfigSnapshot>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = storage.withLock { storage in
            let id = storage.nextWatcher
            storage.nextWatcher += 1
            storage.snapshotWatchers[id] = continuation
            continuation.yield(makeSnapshot(storage.entries))
            return id
        }
        defer {
            storage.withLock { _ = $0.snapshotWatchers.removeValue(forKey: id) }
            continuation.finish()
        }
        return try await handler(ConfigUpdatesAsyncSequence(stream.map { $0 as any ConfigSnapshot }))
    }

    /// How many watchers are registered (for tests and descriptions).
    var watcherCount: Int {
        storage.withLock { storage in
            storage.valueWatchers.values.reduce(0) { $0 + $1.count } + storage.snapshotWatchers.count
        }
    }
}

/// The values of a ``ConfigMirror`` at one moment.
///
/// Its description, debug description and mirror name the provider and the keys with what
/// kind of value each holds, never a value: any of them may be a secret.
struct StoreConfigSnapshot: ConfigSnapshot, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let mirror: ConfigMirror
    let values: [String: StoredConfigValue]

    var providerName: String { mirror.providerName }

    /// `<provider>[<n> values: <key> (<kind>), …]`, keys sorted; never a value.
    var description: String {
        let keys = values.keys.sorted().map { "\($0) (\(values[$0]?.kind ?? ""))" }
        return "\(providerName)[\(values.count) values\(keys.isEmpty ? "" : ": " + keys.joined(separator: ", "))]"
    }

    var debugDescription: String { description }

    /// The provider's name and the keys only.
    var customMirror: Mirror {
        Mirror(self, children: ["providerName": providerName, "keys": values.keys.sorted()], displayStyle: .struct)
    }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let storeKey = mirror.namespace.storeKey(key)
        return try mirror.lookup(values[storeKey], key: key, storeKey: storeKey, type: type)
    }
}
#endif
