import Foundation
import Observation

/// One application's connection to its sync store: the change-feed consumer that keeps the
/// application's ``SyncStateEntry`` caches current, the ordered write-behind queue, and the
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
/// **The feed consumer** is one detached task per binding. It holds the coordinator weakly and
/// ends when the feed ends (the store shut down or was released), when the store is replaced,
/// or when the application's registry is released.
///
/// **Writes** run one at a time in the order they were queued (across all keys of the
/// application), each on the store that was bound when it was queued. ``barrier()`` waits until
/// everything queued before it has settled. A setter's write that finds the queue's last,
/// not-yet-started item to be a setter's write of the same entry and binding replaces it
/// instead of queueing behind it (see ``enqueue(_:)``), so a burst of assignments commits the
/// newest value instead of every one.
final class SyncCoordinator: RegistryEntry, @unchecked Sendable {
    // Safe: `state` is only accessed while `lock` is held; `rebinding` serialises rebinding;
    // the dependency entries synchronise themselves.
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
    private let lock = Lock()
    private let rebinding = Lock()
    private var state = State()

    private struct State {
        var binding: Binding?
        var lastGeneration: UInt64 = 0
        var entries: [String: [WeakEntry]] = [:]
        var queue: [QueueItem] = []
        var isDraining = false
        var reportedScopedOverride = false
        /// The last failure to read each key from the store's local copy, by the generation of
        /// the binding it happened under: a key attached while the store is first bound is
        /// loaded twice (by the binding and by its attach), and reported once.
        var unreadable: [String: (generation: UInt64, message: String)] = [:]
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

    /// One step of the write queue.
    enum QueueItem: Sendable {
        case write(QueuedWrite)
        case barrier(CheckedContinuation<Void, Never>)
    }

    /// A write waiting in the queue; `settle` receives, once, its outcome and how many
    /// earlier writes it superseded (see ``superseded``).
    struct QueuedWrite: Sendable {
        let key: String
        let data: Data?
        let store: any SyncStore
        /// Who queued a setter's (un-awaited) write; `nil` for a write whose caller waits for
        /// its own commit, which is never replaced and never replaces another.
        let origin: Origin?
        /// How many earlier setter writes this one replaced while they waited at the queue's
        /// tail: they were never sent, and settle with it.
        var superseded = 0
        let settle: @Sendable (Result<SyncRecord, any Error>, _ superseded: Int) -> Void
    }

    /// The entry that queued a setter's write and the binding (store) it goes to: writes of
    /// one origin may replace each other in the queue.
    struct Origin: Equatable, Sendable {
        let entry: ObjectIdentifier
        let generation: UInt64
    }

    private init(key: EntryKey, storeEntry: DependencyEntry<any SyncStore>, loggerEntry: DependencyEntry<ApplicationLogger>, registry: Registry) {
        self.storeEntry = storeEntry
        self.storeVersion = storeEntry.version.view
        self.loggerEntry = loggerEntry
        self.registry = registry
        super.init(key: key)
    }

    /// The `\.syncStore` entry's current box and version, the store created with its factory
    /// if the entry has none.
    private func storeSnapshot() -> (box: ValueBox<any SyncStore>, version: UInt64) {
        storeEntry.snapshot { readInRegistry { _ = $0.syncStore } }
    }

    /// The `\.logger` dependency's current value, created with its factory if needed.
    private var logger: ApplicationLogger {
        loggerEntry.snapshot { readInRegistry { _ = $0.logger } }.box.value
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
        state.binding?.feed.cancel()
    }

    override var kindName: String { "SyncConnection" }
    override var valueTypeName: String { String(reflecting: type(of: storeSnapshot().box.value)) }
    override var valueDescription: String {
        let (keys, queued) = lock.withLock { (state.entries.count, state.queue.count) }
        return "keys cached: \(keys), writes queued: \(queued)"
    }

    /// The coordinator of `registry`, created with the registry's first SyncState.
    static func of(_ registry: Registry) -> SyncCoordinator {
        let key = EntryKey(kind: ObjectIdentifier(SyncCoordinator.self), name: EntryName(feature: "AppStateKit", id: "sync"))
        return registry.entry(for: key) {
            // An application over `registry` (not the caller's current one), outside every
            // task-local scope, so the registry's own dependency entries are the ones found.
            let (store, logger) = TaskContext.bind(.none) {
                let owner = Application(resolvingIn: registry)
                return (owner.syncStore.entry!, owner.logger.entry!)
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
        if let current = lock.withLock({ state.binding }), current.storeVersion == version {
            return (current.store, current.generation)
        }
        return rebind()
    }

    private func rebind() -> (store: any SyncStore, generation: UInt64) {
        let (bound, entries): ((store: any SyncStore, generation: UInt64), [any SyncCacheEntry]) = rebinding.withLock {
            let (box, version) = storeSnapshot()
            if let current = lock.withLock({ state.binding }), current.storeVersion == version {
                return ((current.store, current.generation), [])
            }
            let store = box.value
            // Subscribe before reloading, so nothing committed in between is missed.
            let feed = store.changes()
            let generation = lock.withLock {
                state.lastGeneration += 1
                return state.lastGeneration
            }
            let task = Task.detached { [weak self] in
                for await record in feed {
                    guard let self else { return }
                    self.deliver(record, generation: generation)
                }
                if !Task.isCancelled { self?.feedEnded(generation: generation) }
            }
            let (old, entries) = lock.withLock {
                let old = state.binding
                state.binding = Binding(store: store, storeVersion: version, generation: generation, feed: task)
                boundVersion.storeRelaxed(version)
                return (old, liveEntries())
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
            let bound = lock.withLock { state.binding?.storeVersion }
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
        lock.withLock {
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
            lock.withLock { _ = state.unreadable.removeValue(forKey: key) }
        } catch {
            let message = "AppStateKit: SyncState \"\(key)\" could not be read from the sync store's local copy: \(error)"
            let isNew = lock.withLock {
                let previous = state.unreadable.updateValue((generation, message), forKey: key)
                return previous?.generation != generation || previous?.message != message
            }
            if isNew { report(message) }
        }
    }

    /// Called with `lock` held.
    private func liveEntries() -> [any SyncCacheEntry] {
        state.entries.values.flatMap { $0.compactMap(\.entry) }
    }

    private func deliver(_ record: SyncRecord, generation: UInt64) {
        let targets: [any SyncCacheEntry] = lock.withLock {
            guard state.binding?.generation == generation else { return [] }
            return state.entries[record.key]?.compactMap(\.entry) ?? []
        }
        for entry in targets {
            entry.receive(record, generation: generation, force: false)
        }
    }

    private func feedEnded(generation: UInt64) {
        let isCurrent = lock.withLock { state.binding?.generation == generation }
        guard isCurrent else { return }
        report("AppStateKit: the sync store's change feed ended; SyncStates keep their last values and won't hear of other processes' changes until \\.syncStore is replaced")
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

    // MARK: Write queue

    /// Queues `write` behind every write queued before it. An exiting process waits for it
    /// (see ``PendingSyncWrites``).
    ///
    /// A setter's write (one with an ``QueuedWrite/origin``) whose origin and key match the
    /// queue's last item replaces that item instead: the superseded value is never committed,
    /// and its write settles with the replacement. Only the last item, so no write of another
    /// key queued in between is reordered against this key (another process may skip a value,
    /// never see one out of order); never the write being committed, which has left the
    /// queue; and never an awaited write, whose caller waits for its own value's commit.
    func enqueue(_ write: QueuedWrite) {
        PendingSyncWrites.begin(write.key)
        let startDraining = lock.withLock {
            if let origin = write.origin, case let .write(last)? = state.queue.last, last.origin == origin, last.key == write.key {
                var replacement = write
                replacement.superseded = last.superseded + 1
                state.queue[state.queue.count - 1] = .write(replacement)
                // A non-empty queue is being drained already.
                return false
            }
            return append(.write(write))
        }
        if startDraining { startDrain() }
    }

    /// Returns once every write queued before the call has settled.
    func barrier() async {
        await withCheckedContinuation { continuation in
            enqueue(.barrier(continuation))
        }
    }

    private func enqueue(_ item: QueueItem) {
        if lock.withLock({ append(item) }) { startDrain() }
    }

    /// Appends `item`; returns whether the queue must start draining. Called with `lock` held.
    private func append(_ item: QueueItem) -> Bool {
        state.queue.append(item)
        defer { state.isDraining = true }
        return !state.isDraining
    }

    private func startDrain() {
        Task.detached { [self] in await drain() }
    }

    private func drain() async {
        while let item = nextItem() {
            switch item {
            case let .barrier(continuation):
                continuation.resume()
            case let .write(write):
                do {
                    write.settle(.success(try await write.store.write(write.data, forKey: write.key)), write.superseded)
                } catch {
                    write.settle(.failure(error), write.superseded)
                }
                PendingSyncWrites.end(write.key, count: 1 + write.superseded)
            }
        }
    }

    private func nextItem() -> QueueItem? {
        lock.withLock {
            guard !state.queue.isEmpty else {
                state.isDraining = false
                return nil
            }
            return state.queue.removeFirst()
        }
    }

    // MARK: Reporting

    /// Reports, once per application, that a task-local override of `\.syncStore` in the
    /// calling task is not used by SyncState `storeKey`.
    func noteScopedStoreOverride(storeKey: String) {
        guard !OverrideCensus.isEmpty, TaskContext.currentOverrides?.find(Application.syncStoreKey) != nil else { return }
        let isFirst = lock.withLock {
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
