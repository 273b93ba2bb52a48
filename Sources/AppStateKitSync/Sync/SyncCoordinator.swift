import AppStateKitCore
import AppStateKitPersistence
import Foundation
import Observation

/// One application's connection to its sync store: the change-feed consumer that keeps the
/// application's ``SyncStateEntry`` caches current, the write-behind queue, and the
/// store and logger those entries use.
///
/// **Binding to the owning application.** The coordinator is itself an entry of the registry it
/// serves (created with the first SyncState), and holds that registry's `\.syncStore` and
/// `\.logger` dependency entries. (Unlike ``EntryOwner``, which resolves a dependency per call
/// and honours the calling task's scoped overrides, it keeps the entries: the caches are fed by
/// the one store the binding consumes.) A SyncState entry reaches its store and logger only through
/// its coordinator, so it always acts on the application that created it, whatever application
/// is current for the calling task; `promote` and global `override` of those dependencies on
/// that application apply (task-local `withOverrides` don't: an entry has one cache, fed by one
/// store).
///
/// **A new store.** The coordinator is bound to the store the `\.syncStore` entry held when it
/// last looked. A replacement (promotion, global override and its cancellation) is noticed by
/// the next read of any of the application's SyncStates (each read compares the entry's
/// version word with the bound one: two relaxed loads), the next write, `read()` or `update`,
/// and without any access through observation of that entry, within milliseconds. It then subscribes to the new
/// store's feed, stops consuming the old one, and reloads every live entry from the new store's
/// local copy. Versions of different stores are never compared (each binding has its own
/// generation number).
///
/// **The feed consumer** is one detached task per binding, reading the store's
/// ``SyncStore/changeFeed()``. A ``SyncChange/changed(_:)`` record is taken by the key's entries
/// when it is newer than theirs; a ``SyncChange/replaced(_:)`` snapshot is taken by every live
/// entry whatever the versions (a key missing from it reads as its initial value). The task
/// holds the coordinator weakly and ends when the feed ends (the store shut down or was
/// released), when the store is replaced, or when the application's registry is released.
///
/// **Writes** go through the application's ``SyncWriteQueue`` (a lane per key, retries of
/// transient failures, barriers), each to the store that was bound when it was queued.
final class SyncCoordinator: RegistryEntry {
    let core: EntryCore
    private let storeEntry: DependencyEntry<any SyncStore>
    /// The `\.syncStore` entry's version word: it changes when the store is replaced.
    let storeVersion: AtomicWord.View
    /// The store version the current binding was made at (`.max` before the first), so a read
    /// can tell with two loads whether the store was replaced since.
    let boundVersion = AtomicWord(.max)
    private let loggerEntry: DependencyEntry<ApplicationLogger>
    /// The registry the two dependency entries belong to, which gives them their instance if a
    /// global override set before their first use went (see `DependencyEntry`). Weak: the
    /// registry owns the coordinator.
    private weak let registry: Registry?
    private let state = LockedBox(State())
    /// The last binding generation handed out. Held for a whole rebind, which it serialises:
    /// the one box of the coordinator held around user code (the store's factory and its
    /// `changeFeed()`), never while `state` is held.
    private let rebinding = LockedBox<UInt64>(0)

    private struct State {
        var binding: Binding?
        var entries: [String: [WeakEntry]] = [:]
        var reportedScopedOverride = false
        /// How the current binding's feed ended, once it has.
        var feedEnd: FeedEnd?
        /// The last failure to read each key from the store's local copy, by the generation of
        /// the binding it happened under: a key attached while the store is first bound is
        /// loaded twice (by the binding and by its attach), and reported once.
        var unreadable: [String: (generation: UInt64, message: String)] = [:]

        /// The entries still alive.
        var liveEntries: [any SyncCacheEntry] {
            entries.values.flatMap { $0.compactMap(\.entry) }
        }
    }

    /// The store the coordinator consumes, and the dependency version it was read at.
    private struct Binding {
        let store: any SyncStore
        let storeVersion: UInt64
        let generation: UInt64
        let feed: Task<Void, Never>
    }

    private struct WeakEntry {
        weak var entry: (any SyncCacheEntry)?
    }

    private init(key: EntryKey, storeEntry: DependencyEntry<any SyncStore>, loggerEntry: DependencyEntry<ApplicationLogger>, registry: Registry) {
        core = EntryCore(key: key)
        self.storeEntry = storeEntry
        self.storeVersion = storeEntry.version.view
        self.loggerEntry = loggerEntry
        self.registry = registry
        // The queue reaches back through a weak reference set once `self` exists.
        let owner = LockedBox(WeakCoordinator())
        self.writes = SyncWriteQueue(
            isCurrent: { generation in owner.withLock { $0.coordinator }?.isBound(generation: generation) ?? false },
            report: { message in owner.withLock { $0.coordinator }?.report(message) }
        )
        owner.withLock { $0.coordinator = self }
        SyncCoordinator.live.withLock { $0[ObjectIdentifier(self)] = WeakCoordinator(coordinator: self) }
    }

    /// The application's write-behind queue.
    let writes: SyncWriteQueue

    /// Whether `generation` is the current binding's.
    func isBound(generation: UInt64) -> Bool {
        state.withLock { $0.binding?.generation == generation }
    }

    /// Every coordinator alive in the process, for flushes that span applications.
    static let live = LockedBox<[ObjectIdentifier: WeakCoordinator]>([:])

    struct WeakCoordinator {
        weak var coordinator: SyncCoordinator?
    }

    /// The `\.syncStore` entry's current store and version, the store created with its factory
    /// if the entry has none.
    private func storeSnapshot() -> (value: any SyncStore, version: UInt64) {
        storeEntry.snapshot { readInRegistry { _ = $0.syncStore } }
    }

    /// The `\.logger` dependency's current value, created with its factory if needed.
    private var logger: ApplicationLogger {
        loggerEntry.snapshot { readInRegistry { _ = $0.logger } }.value
    }

    /// Runs `read` — a declaration read, which gives an entry without a value its instance —
    /// in the registry's own application, outside every task-local scope.
    private func readInRegistry(_ read: (Application) -> Void) {
        guard let registry else {
            preconditionFailure("AppStateKit: a SyncState was used after the application that owns it was released")
        }
        TaskContext.bind(.none) { read(Application(resolvingIn: registry)) }
    }

    deinit {
        state.withLock { $0.binding }?.feed.cancel()
        let id = ObjectIdentifier(self)
        SyncCoordinator.live.withLock { _ = $0.removeValue(forKey: id) }
    }

    @usableFromInline var kindName: String { "SyncConnection" }
    @usableFromInline var valueTypeName: String { reflectedTypeName(type(of: storeSnapshot().value)) }
    @usableFromInline var valueDescription: String {
        let keys = state.withLock { $0.entries.count }
        return "keys cached: \(keys), writes queued: \(writes.pending.count)"
    }

    /// The coordinator of `registry`, created with the registry's first SyncState.
    static func of(_ registry: Registry) -> SyncCoordinator {
        let key = EntryKey(kind: ObjectIdentifier(SyncCoordinator.self), name: EntryName(feature: "AppStateKit", id: "sync"))
        return registry.entry(for: key) {
            // An application over `registry` (not the caller's current one), outside every
            // task-local scope, so the registry's own dependency entries are the ones found.
            let (store, logger) = TaskContext.bind(.none) {
                let owner = Application(resolvingIn: registry)
                return (owner.syncStore.entry(in: owner)!, owner.logger.entry(in: owner)!)
            }
            let coordinator = SyncCoordinator(key: key, storeEntry: store, loggerEntry: logger, registry: registry)
            // On a task of its own: registering here would also register the caller's
            // `withObservationTracking` closure, if any, for changes of the store.
            Task.detached { [weak coordinator] in coordinator?.watchStore() }
            return coordinator
        }
    }

    // MARK: Store binding

    /// The store writes go to now, and its binding's generation; rebinds first if the
    /// `\.syncStore` dependency changed.
    func binding() -> (store: any SyncStore, generation: UInt64) {
        let version = storeSnapshot().version
        if let current = state.withLock({ $0.binding }), current.storeVersion == version {
            return (current.store, current.generation)
        }
        return rebind()
    }

    private func rebind() -> (store: any SyncStore, generation: UInt64) {
        let (bound, entries): ((store: any SyncStore, generation: UInt64), [any SyncCacheEntry]) = rebinding.withLock { lastGeneration in
            let (store, version) = storeSnapshot()
            if let current = state.withLock({ $0.binding }), current.storeVersion == version {
                return ((current.store, current.generation), [])
            }
            // Subscribe before reloading, so nothing committed in between is missed.
            let feed = store.changeFeed()
            lastGeneration += 1
            let generation = lastGeneration
            let activity = BackgroundActivities.begin("SyncCoordinator change feed", owner: self)
            let task = Task.detached { [weak self] in
                defer { activity.end() }
                for await change in feed {
                    guard let self else { return }
                    switch change {
                    case let .changed(record): self.deliver(record, generation: generation)
                    case let .replaced(records): self.replace(with: records, generation: generation)
                    }
                }
                if !Task.isCancelled { await self?.feedEnded(generation: generation, store: store) }
            }
            let (old, entries) = state.withLock { state in
                let old = state.binding
                state.binding = Binding(store: store, storeVersion: version, generation: generation, feed: task)
                state.feedEnd = nil
                boundVersion.storeRelaxed(version)
                return (old, state.liveEntries)
            }
            old?.feed.cancel()
            return ((store, generation), entries)
        }
        for entry in entries {
            load(entry, from: bound.store, generation: bound.generation)
        }
        return bound
    }

    /// Rebinds soon after the `\.syncStore` entry changes. Observation calls back before the
    /// change is published, so the follow-up waits (briefly, bounded) for the new version.
    private func watchStore() {
        withObservationTracking {
            storeEntry.trackAccess()
        } onChange: { [weak self] in
            Task.detached { await self?.storeWillChange() }
        }
    }

    private func storeWillChange() async {
        watchStore()
        var delay = Duration.microseconds(100)
        for _ in 0..<12 {
            let bound = state.withLock { $0.binding?.storeVersion }
            if storeSnapshot().version != bound {
                _ = binding()
                return
            }
            do {
                try await Task.sleep(for: delay)
            } catch {
                return
            }
            delay *= 2
        }
    }

    // MARK: Entries

    /// Starts feeding `entry` and fills it from the store's local copy.
    func attach(_ entry: any SyncCacheEntry) {
        guard entry.keyProblem == nil else {
            report("AppStateKit: SyncState \"\(entry.storeKey)\" can't be used and reads as its initial value: \(entry.keyProblem!)")
            return
        }
        state.withLock { state in
            var list = state.entries[entry.storeKey, default: []].filter { $0.entry != nil }
            list.append(WeakEntry(entry: entry))
            state.entries[entry.storeKey] = list
        }
        noteScopedStoreOverride(storeKey: entry.storeKey)
        let bound = binding()
        load(entry, from: bound.store, generation: bound.generation)
    }

    /// Fills `entry` from `store`'s local copy of its key.
    private func load(_ entry: any SyncCacheEntry, from store: any SyncStore, generation: UInt64) {
        let key = entry.storeKey
        do {
            entry.receive(try store.cachedRecord(forKey: key), generation: generation, force: false)
            state.withLock { _ = $0.unreadable.removeValue(forKey: key) }
        } catch {
            let message = "AppStateKit: SyncState \"\(key)\" could not be read from the sync store's local copy: \(error)"
            let isNew = state.withLock { state in
                let previous = state.unreadable.updateValue((generation, message), forKey: key)
                return previous?.generation != generation || previous?.message != message
            }
            if isNew { report(message) }
        }
    }

    private func deliver(_ record: SyncRecord, generation: UInt64) {
        let targets: [any SyncCacheEntry] = state.withLock { state in
            guard state.binding?.generation == generation else { return [] }
            return state.entries[record.key]?.compactMap(\.entry) ?? []
        }
        for entry in targets {
            entry.receive(record, generation: generation, force: false)
        }
    }

    /// Takes `records` as everything the store holds: every live entry takes its key's record,
    /// or no record when `records` has none, whatever the versions.
    private func replace(with records: [SyncRecord], generation: UInt64) {
        var byKey: [String: SyncRecord] = [:]
        for record in records { byKey[record.key] = record }
        let targets: [any SyncCacheEntry] = state.withLock { state in
            guard state.binding?.generation == generation else { return [] }
            return state.liveEntries
        }
        for entry in targets {
            entry.receive(byKey[entry.storeKey], generation: generation, force: true)
        }
    }

    /// How a binding's change feed ended.
    enum FeedEnd: Sendable, Equatable {
        /// The store said it stopped: logged at debug level.
        case stopped
        /// The store did not say it stopped: reported as an error.
        case unexpectedly
    }

    /// How the current binding's feed ended, once it has (`nil` while it runs).
    var feedEnd: FeedEnd? {
        state.withLock { $0.feedEnd }
    }

    /// The current binding's feed ended: the store shut down. A store whose status says it
    /// stopped did so on purpose (a graceful shutdown, a normal exit): that is logged at debug
    /// level. Otherwise the end is reported as an error.
    private func feedEnded(generation: UInt64, store: any SyncStore) async {
        let isCurrent = state.withLock { $0.binding?.generation == generation }
        guard isCurrent else { return }
        var status: SyncStoreStatus?
        for await current in store.statusUpdates() {
            status = current
            break
        }
        let consequence = "SyncStates keep their last values and won't hear of other processes' changes until \\.syncStore is replaced"
        if status == .stopped {
            logger.debug("AppStateKit: the sync store stopped; \(consequence)")
        } else {
            report("AppStateKit: the sync store's change feed ended while the store is \(status.map { "\($0)" } ?? "silent"); \(consequence)")
        }
        state.withLock { state in
            if state.binding?.generation == generation { state.feedEnd = status == .stopped ? .stopped : .unexpectedly }
        }
    }

    /// Fetches `entry`'s key from the store and shows it: after a failed write, the value
    /// converges to what the store holds.
    func converge(_ entry: any SyncCacheEntry) {
        let bound = binding()
        Task.detached { [self] in
            do {
                let record = try await bound.store.fetchRecord(forKey: entry.storeKey)
                entry.receive(record, generation: bound.generation, force: true)
            } catch {
                report("AppStateKit: SyncState \"\(entry.storeKey)\" could not be re-read after a failed write: \(error); it shows the last value the store reported")
            }
        }
    }

    // MARK: Reporting

    /// Reports, once per application, that a task-local override of `\.syncStore` in the
    /// calling task is not used by SyncState `storeKey`.
    func noteScopedStoreOverride(storeKey: String) {
        guard !OverrideCensus.isEmpty, TaskContext.currentOverrides?.find(Application.syncStoreKey) != nil else { return }
        let isFirst = state.withLock { state in
            defer { state.reportedScopedOverride = true }
            return !state.reportedScopedOverride
        }
        guard isFirst else { return }
        report(
            "AppStateKit: SyncState \"\(storeKey)\" ignores the task-local override of \\.syncStore (withOverrides, .overriding): "
                + "a SyncState's cache is fed by one store, its application's. Promote the store instead, inside an isolated application for a test"
        )
    }

    /// Reports `message` through the owning application's logger.
    func report(_ message: String) {
        logger.error(message)
    }
}
