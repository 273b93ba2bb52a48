#if Configuration
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Configuration
import Foundation
import Synchronization

/// A swift-configuration provider over a StoredState key-value store
/// (``AppStateKit/FileKeyValueStore``, ``AppStateKit/UserDefaultsStore``,
/// ``AppStateKit/InMemoryDefaults``): settings that survive restarts and that every process
/// using the same store file shares, changeable at run time.
///
/// ```swift
/// let local = try KeyValueStoreConfigProvider(store: FileKeyValueStore(path: "/var/lib/app/config.json"))
/// let config = ConfigReader(providers: [EnvironmentVariablesProvider(), local])
/// let level = config.string(forKey: "log.level", default: "info")   // no I/O
/// try local.setValue("debug", forKey: "log.level")                   // durable when it returns
/// ```
///
/// - **Keys:** setting `log.level` is the store key `"Configuration/log.level"`
///   (`"<namespace>/<components joined by dots>"`), so a StoredState of that key is the same
///   setting.
/// - **Values** are property-list values, read as the type asked for: `String`, `Int` (also
///   read as a double), `Double`, `Bool`, `Data` (bytes) and arrays of them. A value that does
///   not read as the type asked for throws ``ConfigStoreError`` naming the key, never the value.
/// - ``value(forKey:type:)`` and ``snapshot()`` answer from memory: the namespace as read when
///   the provider was created, refreshed every `pollInterval` (another process's writes arrive
///   within that interval; this provider's own writes at once).
/// - **Who polls.** The initialiser starts nothing. ``run()`` polls until its task is cancelled
///   (run it in your service group, see there). Without it, the provider's first read or watch
///   starts a worker (a detached task) that polls until the provider is released or ``run()``
///   takes over; after ``run()`` returns, nothing polls and the values stay as they are.
/// - ``fetchValue(forKey:type:)`` reads the store now; ``refresh()`` reads the namespace now.
/// - ``watchValue(forKey:type:updatesHandler:)`` and ``watchSnapshot(updatesHandler:)`` emit the
///   current value, then every change a write through the provider or a poll finds.
/// - A poll that can't read the store keeps the values held, and reports the error through the
///   `\.logger` of the application that created the provider, once until a poll
///   succeeds again.
public final class KeyValueStoreConfigProvider: Sendable {
    /// The store the values live in.
    public let store: any ListableKeyValueStore
    /// The first part of every store key (`"Configuration"` unless chosen).
    public let namespace: String
    let mirror: ConfigMirror
    private let pollInterval: Duration
    /// The poll clock and logger of the application that created the provider.
    private let clock: any Clock<Duration>
    private let logger: ApplicationLogger
    private let refresher = ProviderRefresh()

    /// Creates a provider of the values under `namespace` in `store`, reading them now; it
    /// starts no task (see "Who polls" on the type).
    ///
    /// Damage never stops the start: a value of the namespace that can't be read (a damaged
    /// entry, kept by the store) is left out and reported — its key, the store's message (which
    /// names the file) and what to do — through the `\.logger` of the current application; it
    /// reads as absent until it is written again. A store too damaged to list its keys (a
    /// ``AppStateKit/PersistenceError`` of kind `corruptData`) starts the provider empty, reported
    /// the same way; the polls take its values once it is repaired.
    ///
    /// - Parameters:
    ///   - store: The key-value store (often the application's `\.userDefaults` store).
    ///   - namespace: The first part of every store key; non-empty, without `/` or `%`.
    ///   - pollInterval: How often the store is read for other processes' changes.
    ///   - secrets: Which values are secrets (by dotted key), so that swift-configuration
    ///     redacts them. A key that an ``AppStateKit/Application/SecureState`` names (feature
    ///     `namespace`, or the default feature, and id `"db.password"`) is a secret without
    ///     being listed.
    /// - Throws: The store's error when its keys can't be read for another reason than damage
    ///   (permissions, I/O);
    ///   ``ConfigStoreError`` of kind ``ConfigStoreError/Kind/invalidNamespace`` when `namespace`
    ///   is empty or holds `/` or `%` (nothing is read then).
    public init(
        store: any ListableKeyValueStore, namespace: String = "Configuration", pollInterval: Duration = .seconds(1),
        secrets: SecretsSpecifier<String, ConfigContent> = .none
    ) throws {
        let configNamespace = try ConfigNamespace(namespace)
        let providerName = "KeyValueStoreConfigProvider[\(namespace)]"
        let logger = Application.logger
        let (entries, damage) = try Self.read(store, configNamespace, startingOnDamage: true)
        let mirror = ConfigMirror(providerName: providerName, namespace: configNamespace, secrets: secrets, entries: entries, logger: logger)
        for (key, error) in damage {
            mirror.report(Self.damageReport(error, key: key, providerName: providerName), storeKey: key)
        }
        self.store = store
        self.namespace = namespace
        self.mirror = mirror
        self.pollInterval = pollInterval
        // The poll reports to the logger and sleeps on the wait clock (WaitClock) of the task that
        // created the provider, whoever runs it.
        self.clock = WaitClock.current
        self.logger = logger
    }

    /// Polls the store every `pollInterval` until the calling task is cancelled, then returns;
    /// a worker that the provider's first read started stops first, and none starts again.
    ///
    /// It has the shape of a swift-service-lifecycle `Service`'s `run()`; AppStateKitConfiguration
    /// does not depend on swift-service-lifecycle. A graceful shutdown alone does not end it, so
    /// run it from a service of your own as
    /// `try await cancelWhenGracefulShutdown { try await provider.run() }`, or add the one-line
    /// conformance `extension KeyValueStoreConfigProvider: @retroactive Service {}` and give the
    /// `ServiceGroup` a `maximumGracefulShutdownDuration`, after which it cancels its services.
    ///
    /// - Throws: Nothing yet: a poll that fails is reported and the values held are kept.
    public func run() async throws {
        await refresher.takeOver()
        let activity = BackgroundActivities.begin("KeyValueStoreConfigProvider.run poll", owner: self)
        defer { activity.end() }
        await Self.poll(mirror, store: store, every: pollInterval, on: clock, logger: logger)
    }

    /// Starts the worker that polls when nothing else does (see "Who polls" on the type).
    private func startWorkerIfNeeded() {
        guard !refresher.isClaimed else { return }
        refresher.startWorker(name: "KeyValueStoreConfigProvider poll worker", owner: self) {
            { [mirror, store, pollInterval, clock, logger] in
                await Self.poll(mirror, store: store, every: pollInterval, on: clock, logger: logger)
            }
        }
    }

    /// Refreshes `mirror` from `store` every `interval` until the calling task is cancelled; a
    /// failure is reported through `logger` once until a poll succeeds.
    private static func poll(
        _ mirror: ConfigMirror, store: any ListableKeyValueStore, every interval: Duration, on clock: any Clock<Duration>, logger: ApplicationLogger
    ) async {
        var reported: String?
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: interval, tolerance: nil)
            } catch {
                return
            }
            do {
                try refresh(mirror, from: store)
                reported = nil
            } catch {
                let message = "\(error)"
                guard message != reported else { continue }
                reported = message
                logger.error(error, "AppStateKitConfiguration: \(mirror.providerName) could not read its store; serving the values it read last")
            }
        }
    }

    /// Every readable value of `namespace` in `store`, and the keys whose value can't be read
    /// with why. With `startingOnDamage`, a store that can't list its keys for damage
    /// (`corruptData`) reads as empty, with that error under the namespace's prefix.
    ///
    /// - Throws: The error listing the keys (except damage, with `startingOnDamage`).
    static func read(
        _ store: any ListableKeyValueStore, _ namespace: ConfigNamespace, startingOnDamage: Bool
    ) throws -> (entries: [String: ConfigMirror.Entry], damage: [(String, any Error)]) {
        let keys: [String]
        do {
            keys = try store.keys
        } catch let error as PersistenceError where startingOnDamage && error.kind == .corruptData {
            return ([:], [(namespace.prefix, error)])
        }
        var entries: [String: ConfigMirror.Entry] = [:]
        var damage: [(String, any Error)] = []
        for key in keys where namespace.contains(key) {
            do {
                guard let object = try store.readObject(forKey: key) else { continue }
                entries[key] = ConfigMirror.Entry(value: StoredConfigValue(propertyList: object), version: 0)
            } catch {
                damage.append((key, error))
            }
        }
        return (entries, damage)
    }

    /// Replaces `mirror`'s values with the store's readable ones; a key that can't be read keeps
    /// the value held and is reported (once).
    ///
    /// - Throws: The error listing the keys; `mirror` then keeps its values.
    static func refresh(_ mirror: ConfigMirror, from store: any ListableKeyValueStore) throws {
        var (entries, damage) = try read(store, mirror.namespace, startingOnDamage: false)
        for (key, error) in damage {
            mirror.report(damageReport(error, key: key, providerName: mirror.providerName), storeKey: key)
            entries[key] = mirror.entry(of: key)
        }
        mirror.replaceAll(with: entries)
    }

    /// The report of a value that can't be read: the key, the store's message (naming the
    /// file) and what to do.
    static func damageReport(_ error: any Error, key: String, providerName: String) -> String {
        "AppStateKitConfiguration: \(providerName) can't read \"\(key)\" (\(error)); it serves every other key, "
            + "and this one as absent (readers get their default) or as the value it read before. To repair it, write "
            + "the key (setValue(_:forKey:)) or restore the store's file; the next poll or refresh() takes the repaired value"
    }

    /// Reads the namespace from the store now and tells watchers of what changed (what each
    /// poll does). A value that can't be read keeps the one held and is reported.
    ///
    /// - Throws: The store's error listing its keys; the provider then keeps its values.
    public func refresh() throws {
        try Self.refresh(mirror, from: store)
    }
}

extension KeyValueStoreConfigProvider: ConfigProvider {
    /// `"KeyValueStoreConfigProvider[<namespace>]"`.
    public var providerName: String { mirror.providerName }

    /// The value the provider holds for `key`, without I/O.
    ///
    /// - Throws: ``ConfigStoreError`` when the stored value does not read as `type`.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        startWorkerIfNeeded()
        return try mirror.value(forKey: key, type: type)
    }

    /// The store's value for `key` now; the provider keeps it, so later reads and watchers see
    /// it too.
    ///
    /// - Throws: The store's error, or ``ConfigStoreError`` when the value does not read as
    ///   `type`.
    public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        let storeKey = mirror.namespace.storeKey(key)
        let value = try store.readObject(forKey: storeKey).map(StoredConfigValue.init(propertyList:))
        mirror.apply([storeKey: ConfigMirror.Entry(value: value, version: 0)], precedence: .authoritative)
        return try mirror.lookup(value, key: key, storeKey: storeKey, type: type)
    }

    /// Emits the value of `key` now, then each change.
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

    /// Emits a snapshot now, then one after each change.
    nonisolated(nonsending) public func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        startWorkerIfNeeded()
        return try await mirror.watchSnapshot(updatesHandler: updatesHandler)
    }
}

extension KeyValueStoreConfigProvider {
    /// Writes `value` for `key` to the store (`nil` removes it) and returns once the store has
    /// it (for ``AppStateKit/FileKeyValueStore``: durable on disk); this provider's readers and
    /// watchers see it at once, other processes' at their next poll.
    ///
    /// - Throws: The store's error (nothing was written).
    public func setValue(_ value: ConfigContent?, forKey key: ConfigKey) throws {
        let storeKey = mirror.namespace.storeKey(AbsoluteConfigKey(key))
        try store.writeObject(value?.propertyList, forKey: storeKey)
        let stored = value.map { StoredConfigValue(propertyList: $0.propertyList) }
        mirror.apply([storeKey: ConfigMirror.Entry(value: stored, version: 0)], precedence: .authoritative)
    }
}

extension KeyValueStoreConfigProvider: CustomStringConvertible {
    /// The provider's name and how many values and watchers it has (never the values).
    public var description: String {
        "\(providerName)[\(mirror.snapshot().values.count) values, \(mirror.watcherCount) watchers]"
    }
}
#endif
