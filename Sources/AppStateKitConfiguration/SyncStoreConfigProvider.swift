#if Configuration
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
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
///   (``AppStateKit/SyncStore/changeFeed()``). When the store says its data was replaced (a
///   restore, a truncation, its file replaced), the provider takes the store's records whatever
///   their versions.
/// - **Who follows the feed.** The initialiser starts nothing and subscribes to nothing.
///   ``run()`` follows the feed until its task is cancelled (run it in your service group, see
///   there). Without it, the provider's first read or watch subscribes and starts a worker (a
///   detached task) that follows the feed until the provider is released or ``run()`` takes
///   over; after ``run()`` returns, nothing follows the feed and the values stay as they are.
///   Whoever starts following reads the namespace once more after subscribing, so a change made
///   between the provider's creation and then is not missed.
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
    private let refresher = ProviderRefresh()

    /// Creates a provider of the values under `namespace` in `store`, once it has read them; it
    /// starts no task and subscribes to no feed (see "Who follows the feed" on the type).
    ///
    /// Damage never stops the start: when the store reports a damaged record (a
    /// ``AppStateKit/SyncStoreError`` of kind `corruptRecord`), the provider reads the namespace
    /// key by key, serves every key it can read, and reports each damaged one — its key, the
    /// store's message (which names the file) and what to do — through the `\.logger` of the
    /// current application. A damaged key reads as absent until it is written again (a write
    /// replaces the damaged record) or the store's feed brings its repair.
    ///
    /// - Parameters:
    ///   - store: The sync store (the application's `\.syncStore`, a `PostgresSyncStore`, …).
    ///   - namespace: The first part of every store key; non-empty, without `/` or `%`.
    ///   - secrets: Which values are secrets (by dotted key, `"db.password"`), so that
    ///     swift-configuration redacts them in logs and access reports. A key that an
    ///     ``AppStateKit/Application/SecureState`` names (feature `namespace`, or the default
    ///     feature, and id `"db.password"`) is a secret without being listed.
    /// - Throws: The store's error when its ``AppStateKit/SyncStore/snapshot()`` fails for
    ///   another reason than damage (for PostgreSQL: the database can't be reached);
    ///   ``ConfigStoreError`` of kind ``ConfigStoreError/Kind/invalidNamespace`` when `namespace`
    ///   is empty or holds `/` or `%` (nothing is read then).
    public init(store: any SyncStore, namespace: String = "Configuration", secrets: SecretsSpecifier<String, ConfigContent> = .none) async throws {
        let configNamespace = try ConfigNamespace(namespace)
        let providerName = "SyncStoreConfigProvider[\(namespace)]"
        let logger = Application.logger
        let (records, damage) = try await Self.readNamespace(of: store, configNamespace)
        let mirror = ConfigMirror(
            providerName: providerName, namespace: configNamespace, secrets: secrets,
            entries: Self.entries(records, in: configNamespace), logger: logger
        )
        for (key, error) in damage {
            mirror.report(Self.damageReport(error, key: key, providerName: providerName), storeKey: key)
        }
        self.store = store
        self.namespace = namespace
        self.mirror = mirror
    }

    /// Follows the store's change feed until the calling task is cancelled or the store ends
    /// the feed (it shut down), then returns; a worker that the provider's first read started
    /// stops first, and none starts again. It subscribes, then reads the namespace once more
    /// (a failure is reported through the logger and the values held are kept).
    ///
    /// It has the shape of a swift-service-lifecycle `Service`'s `run()`; AppStateKitConfiguration
    /// does not depend on swift-service-lifecycle. A graceful shutdown alone does not end it, so
    /// run it from a service of your own as
    /// `try await cancelWhenGracefulShutdown { try await provider.run() }`, or add the one-line
    /// conformance `extension SyncStoreConfigProvider: @retroactive Service {}` and give the
    /// `ServiceGroup` a `maximumGracefulShutdownDuration`, after which it cancels its services.
    ///
    /// - Throws: Nothing yet: failures are reported and the values held are kept.
    public func run() async throws {
        await refresher.takeOver()
        let activity = BackgroundActivities.begin("SyncStoreConfigProvider.run change feed", owner: self)
        defer { activity.end() }
        await Self.follow(store.changeFeed(), of: store, into: mirror)
    }

    /// Subscribes and starts the worker that follows the feed when nothing else does (see "Who
    /// follows the feed" on the type).
    private func startWorkerIfNeeded() {
        guard !refresher.isClaimed else { return }
        refresher.startWorker(name: "SyncStoreConfigProvider change feed worker", owner: self) {
            // Subscribed now, before the caller reads or watches, so nothing committed from here
            // on is missed.
            let changes = store.changeFeed()
            return { [store, mirror] in await Self.follow(changes, of: store, into: mirror) }
        }
    }

    /// Reads the namespace again (what changed since `mirror` was filled), then applies each
    /// change of `changes` to `mirror` until the feed ends or the calling task is cancelled.
    private static func follow(_ changes: AsyncStream<SyncChange>, of store: any SyncStore, into mirror: ConfigMirror) async {
        do {
            try await reload(mirror, from: store)
        } catch {
            mirror.report(
                "AppStateKitConfiguration: \(mirror.providerName) could not read its store again when it began following the "
                    + "change feed (\(error)); it serves the values it read before and every change the feed brings; reload() reads the store again",
                storeKey: mirror.namespace.prefix
            )
        }
        let namespace = mirror.namespace
        for await change in changes {
            switch change {
            case let .changed(record):
                guard namespace.contains(record.key) else { continue }
                mirror.apply([record.key: entry(record)], precedence: .newerVersion)
            case let .replaced(records):
                // The store's data was replaced (restored, truncated, its file replaced):
                // its records win whatever their versions, and keys missing are gone.
                mirror.replaceAll(with: entries(records, in: namespace))
            }
        }
    }

    /// The records of `namespace` in `store`, and the damaged keys with the store's error.
    ///
    /// A snapshot first; when the store reports damage instead, key by key (``SyncStore/keys()``
    /// then each key's record), leaving out and returning the keys it reports damaged; when even
    /// the keys can't be listed for damage, nothing, with that error under the key it names
    /// (the namespace's prefix when it names none).
    ///
    /// - Throws: Every error other than damage.
    static func readNamespace(of store: any SyncStore, _ namespace: ConfigNamespace) async throws -> (records: [SyncRecord], damage: [(String, SyncStoreError)]) {
        let snapshotDamage: SyncStoreError
        do {
            return (try await store.snapshot(), [])
        } catch let error as SyncStoreError where error.kind == .corruptRecord {
            snapshotDamage = error
        }
        let keys: [String]
        do {
            keys = try await store.keys()
        } catch let error as SyncStoreError where error.kind == .corruptRecord {
            return ([], [(snapshotDamage.key.isEmpty ? namespace.prefix : snapshotDamage.key, snapshotDamage)])
        }
        var records: [SyncRecord] = []
        var damage: [(String, SyncStoreError)] = []
        for key in keys where namespace.contains(key) {
            do {
                if let record = try await store.fetchRecord(forKey: key) { records.append(record) }
            } catch let error as SyncStoreError where error.kind == .corruptRecord {
                damage.append((key, error))
            }
        }
        return (records, damage)
    }

    /// The report of a damaged record (or store file): the key, the store's message (naming
    /// the file) and what to do.
    static func damageReport(_ error: SyncStoreError, key: String, providerName: String) -> String {
        "AppStateKitConfiguration: \(providerName) started without the damaged record of \"\(key)\" (\(error)); "
            + "it reads as absent (readers get their default). To repair it, write the key (setValue(_:forKey:), "
            + "which replaces the damaged record after the store keeps it aside) or restore the store's file; "
            + "the provider takes the repaired value from the store's change feed or at reload()"
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
    /// - Throws: The store's error when its snapshot fails for another reason than damage; the
    ///   provider then keeps its values. A damaged record is reported, and its key keeps the
    ///   value held.
    public func reload() async throws {
        try await Self.reload(mirror, from: store)
    }

    /// ``reload()`` of `mirror` from `store`.
    static func reload(_ mirror: ConfigMirror, from store: any SyncStore) async throws {
        let (records, damage) = try await readNamespace(of: store, mirror.namespace)
        var entries = entries(records, in: mirror.namespace)
        for (key, error) in damage {
            mirror.report(damageReport(error, key: key, providerName: mirror.providerName), storeKey: key)
            // The store could not even list its keys: every value held is kept.
            if key == mirror.namespace.prefix { return }
            // A damaged key keeps the value held: the provider knew it before the damage.
            entries[key] = mirror.entry(of: key)
        }
        mirror.replaceAll(with: entries)
    }
}

extension SyncStoreConfigProvider: ConfigProvider {
    /// `"SyncStoreConfigProvider[<namespace>]"`.
    public var providerName: String { mirror.providerName }

    /// The value the provider holds for `key`, without I/O.
    ///
    /// - Throws: ``ConfigStoreError`` when the stored value does not read as `type`.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        startWorkerIfNeeded()
        return try mirror.value(forKey: key, type: type)
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
        startWorkerIfNeeded()
        return try await mirror.watchValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    /// The values the provider holds now, frozen.
    public func snapshot() -> any ConfigSnapshot {
        startWorkerIfNeeded()
        return mirror.snapshot()
    }

    /// Emits a snapshot now, then one after each change the store's feed brings.
    nonisolated(nonsending) public func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        startWorkerIfNeeded()
        return try await mirror.watchSnapshot(updatesHandler: updatesHandler)
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
