#if Configuration
import AppStateKit
import Configuration
import Foundation

/// A swift-configuration provider over a ``AppStateKit/SyncStore``: settings shared by every
/// process on a machine (``AppStateKit/LocalSyncStore``) or every instance of a fleet
/// (`PostgresSyncStore`), changeable at run time.
///
/// ```swift
/// let fleet = try await SyncStoreConfigProvider(store: store)
/// let config = ConfigReader(providers: [EnvironmentVariablesProvider(), fleet])
/// let limit = config.int(forKey: "http.rateLimit", default: 100)     // no I/O
///
/// try await fleet.setValue(200, forKey: "http.rateLimit")             // every instance sees it
/// ```
///
/// - **Keys:** setting `http.rateLimit` is the store key `"Configuration/http.rateLimit"`
///   (`"<namespace>/<components joined by dots>"`), the key of a
///   ``AppStateKit/Application/SyncState`` with feature `"Configuration"` and id
///   `"http.rateLimit"`.
/// - **Values** are natural JSON, read as the type asked for: `200` as an int or a double,
///   `"info"` as a string, a base64 string as bytes, arrays as arrays. A value that does not
///   read as the type asked for throws ``ConfigStoreError`` naming the key, never the value.
/// - ``value(forKey:type:)`` and ``snapshot()`` answer from memory: the namespace as read when
///   the provider was created, kept current by the store's change feed
///   (``AppStateKit/SyncStore/changeFeed()``, followed by a detached task that ends when the
///   provider is released). When the store says its data was replaced (a restore, a truncation,
///   its file replaced), the provider takes the store's records whatever their versions.
/// - ``fetchValue(forKey:type:)`` asks the store itself (a round trip for PostgreSQL) and
///   updates the memory.
/// - ``watchValue(forKey:type:updatesHandler:)`` and ``watchSnapshot(updatesHandler:)`` emit the
///   current value, then every change the feed brings (other processes' and machines' writes as
///   well as this one's).
/// - While the store is unreachable, reads keep answering the last values the provider
///   received; ``fetchValue(forKey:type:)`` and ``setValue(_:forKey:)`` throw the store's error.
public final class SyncStoreConfigProvider: Sendable {
    /// The store the values live in.
    public let store: any SyncStore
    /// The first part of every store key (`"Configuration"` unless chosen).
    public let namespace: String
    let mirror: ConfigMirror
    private let feed: Task<Void, Never>

    /// Creates a provider of the values under `namespace` in `store`, once it has read them.
    ///
    /// - Parameters:
    ///   - store: The sync store (the application's `\.syncStore`, a `PostgresSyncStore`, …).
    ///   - namespace: The first part of every store key; non-empty, without `/` or `%`.
    ///   - secrets: Which values are secrets (by dotted key, `"db.password"`), so that
    ///     swift-configuration redacts them in logs and access reports.
    /// - Throws: The store's error when its ``AppStateKit/SyncStore/snapshot()`` fails (for
    ///   PostgreSQL: the database can't be reached).
    public init(store: any SyncStore, namespace: String = "Configuration", secrets: SecretsSpecifier<String, ConfigContent> = .none) async throws {
        let configNamespace = ConfigNamespace(namespace)
        // Subscribed before the snapshot, so nothing committed between the two is missed.
        let changes = store.changeFeed()
        let records = try await store.snapshot()
        let mirror = ConfigMirror(
            providerName: "SyncStoreConfigProvider[\(namespace)]", namespace: configNamespace, secrets: secrets,
            entries: Self.entries(records, in: configNamespace)
        )
        self.store = store
        self.namespace = namespace
        self.mirror = mirror
        self.feed = Task.detached {
            for await change in changes {
                switch change {
                case let .changed(record):
                    guard configNamespace.contains(record.key) else { continue }
                    mirror.apply([record.key: Self.entry(record)], precedence: .newerVersion)
                case let .replaced(records):
                    // The store's data was replaced (restored, truncated, its file replaced):
                    // its records win whatever their versions, and keys missing are gone.
                    mirror.replaceAll(with: Self.entries(records, in: configNamespace))
                }
            }
        }
    }

    deinit {
        feed.cancel()
    }

    /// The mirror entry of a record.
    static func entry(_ record: SyncRecord) -> ConfigMirror.Entry {
        ConfigMirror.Entry(value: record.value.map(StoredConfigValue.init(json:)), version: record.version)
    }

    /// The mirror entries of the namespace's records among `records`.
    static func entries(_ records: [SyncRecord], in namespace: ConfigNamespace) -> [String: ConfigMirror.Entry] {
        var entries: [String: ConfigMirror.Entry] = [:]
        for record in records where namespace.contains(record.key) {
            if let held = entries[record.key], held.version >= record.version { continue }
            entries[record.key] = entry(record)
        }
        return entries
    }

    /// Reads the whole namespace from the store again and replaces what the provider holds
    /// (keys gone from the store are removed), telling watchers of what changed.
    ///
    /// The change feed keeps the provider current without it, replacements included; call it to
    /// take the store's values whatever their versions when the store can't tell its data was
    /// replaced.
    ///
    /// - Throws: The store's error when its snapshot fails; the provider then keeps its values.
    public func reload() async throws {
        let records = try await store.snapshot()
        mirror.replaceAll(with: Self.entries(records, in: mirror.namespace))
    }
}

extension SyncStoreConfigProvider: ConfigProvider {
    /// `"SyncStoreConfigProvider[<namespace>]"`.
    public var providerName: String { mirror.providerName }

    /// The value the provider holds for `key`, without I/O.
    ///
    /// - Throws: ``ConfigStoreError`` when the stored value does not read as `type`.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try mirror.value(forKey: key, type: type)
    }

    /// The store's value for `key` now (a round trip for networked stores); the provider keeps
    /// it, so later reads and watchers see it too.
    ///
    /// - Throws: The store's error (unreachable, …), or ``ConfigStoreError`` when the value does
    ///   not read as `type`.
    public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        let storeKey = mirror.namespace.storeKey(key)
        let record = try await store.fetchRecord(forKey: storeKey)
        let entry = record.map(Self.entry) ?? ConfigMirror.Entry(value: nil, version: 0)
        // The store's answer wins unless the feed already brought a newer version.
        if entry.version >= mirror.version(of: storeKey) || record == nil {
            mirror.apply([storeKey: entry], precedence: .authoritative)
        }
        return try mirror.lookup(entry.value, key: key, storeKey: storeKey, type: type)
    }

    /// Emits the value of `key` now, then each change the store's feed brings.
    nonisolated(nonsending) public func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await mirror.watchValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    /// The values the provider holds now, frozen.
    public func snapshot() -> any ConfigSnapshot {
        mirror.snapshot()
    }

    /// Emits a snapshot now, then one after each change the store's feed brings.
    nonisolated(nonsending) public func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await mirror.watchSnapshot(updatesHandler: updatesHandler)
    }
}

extension SyncStoreConfigProvider {
    /// Writes `value` for `key` to the store (`nil` removes it), once it is durable there; every
    /// provider over the store, here or on other machines, then sees it through its feed.
    ///
    /// ```swift
    /// try await fleet.setValue(.string("debug"), forKey: "log.level")
    /// try await fleet.setValue(nil, forKey: "log.level")                 // back to the default
    /// ```
    ///
    /// - Throws: ``ConfigStoreError`` of kind `unencodable` for a double that is not finite, or
    ///   the store's error (nothing was written).
    public func setValue(_ value: ConfigContent?, forKey key: ConfigKey) async throws {
        let storeKey = mirror.namespace.storeKey(AbsoluteConfigKey(key))
        let data = try value?.json(key: storeKey)
        let record = try await store.write(data, forKey: storeKey)
        mirror.apply([storeKey: Self.entry(record)], precedence: .newerVersion)
    }
}

extension SyncStoreConfigProvider: CustomStringConvertible {
    /// The provider's name and how many values and watchers it has (never the values).
    public var description: String {
        "\(providerName)[\(mirror.snapshot().values.count) values, \(mirror.watcherCount) watchers]"
    }
}
#endif
