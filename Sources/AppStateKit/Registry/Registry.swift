#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The lock-protected cache of entries behind one ``Application``.
///
/// A thread's first lookup of a key takes the lock for one probe of the entry table; later
/// lookups on that thread are answered by its memo (below) without a lock. Creation is single-flight: the first
/// thread to ask for a missing entry runs its initial value or factory *outside* the lock while
/// other threads asking for the same key wait; threads asking for other keys, existing or new, are
/// never blocked by it. A factory may resolve further entries (nested creation) from any thread.
/// When waiting would close a cycle (A's factory needs B whose factory needs A, on one thread or
/// across threads), the process stops with a message naming the chain of keys instead of hanging.
/// An entry that exists without a value yet (a dependency overridden before its first use, whose
/// overrides went) gets it the same way, single-flight, through ``fill(_:isFilled:fill:)``.
///
/// Each thread memoises its lookups (`ThreadLookupCache`), so reading an existing entry takes no
/// lock at all. Entries are never replaced, but they can be removed (``remove(_:)``): the
/// registry then moves to a new ``stamp``, and each thread's memo, seeing a stamp other than
/// the one it last synchronised at, forgets the removed keys (listed in a ``RemovalLog``)
/// before it answers again. A memo slot holds its entry strongly, so a removed entry stays
/// alive — detached from the registry — for as long as a memo or a handle still refers to it.
@usableFromInline
final class Registry: @unchecked Sendable {
    // Safe: `storage` is only read or written while `lock` is held; `identity` is immutable and
    // `stamp` atomic.
    private let lock = Lock()
    /// Distinguishes this registry in per-thread memos; never reused, unlike an address.
    let identity: UInt64
    /// This registry's version as seen by per-thread memos: ``identity`` until the first
    /// removal, then a fresh number (from the same counter, so it only grows) per removal.
    /// Written only with `lock` held.
    @usableFromInline let stamp: Atomic<UInt64>
    private static let nextSerial = Atomic<UInt64>(0)
    private let creationFinished = Condition()
    private var storage = Storage()
    /// ``ThreadLookupCache/threadKey``, copied so the read path reads a field instead of a
    /// lazily initialised global.
    @usableFromInline let threadKey: pthread_key_t = ThreadLookupCache.threadKey

    private struct Storage: ~Copyable {
        /// Created entries, by ``EntryKey/fastHash``.
        var entries = ObjectTable<RegistryEntry>()
        /// Entries whose creation is running, by key.
        var pending: [EntryKey: PendingCreation] = [:]
        /// The innermost creation each thread is running.
        var running: [ThreadID: PendingCreation] = [:]
        /// The creation each blocked thread is waiting for.
        var waiting: [ThreadID: PendingCreation] = [:]
        /// The most recent removals, for memos to catch up with.
        var removals = RemovalLog()
    }

    init() {
        identity = Registry.nextSerial.add(1, ordering: .relaxed).newValue
        stamp = Atomic(identity)
    }

    /// Returns the entry for `key`, creating it with `create` on first access.
    ///
    /// `create` runs at most once per key and never with the registry lock held.
    @inlinable
    func entry<Entry: RegistryEntry>(
        for key: EntryKey,
        as type: Entry.Type = Entry.self,
        create: () -> Entry
    ) -> Entry {
        withSlot(for: key, create: { _ in create() }) { $0.entry(as: Entry.self) }
    }

    /// Runs `body` with the calling thread's memo slot for `key`, creating the entry with
    /// `create` on first access; the slot is not retained unless `body` keeps it (a handle
    /// does).
    ///
    /// This and ``ThreadLookupCache/Slot/withEntry(as:_:)`` are the read path: everything
    /// unretained and unchecked stays inside them (see Documentation/Internals.md).
    @inlinable @inline(__always)
    func withSlot<Result>(
        for key: EntryKey,
        create: (EntryKey) -> RegistryEntry,
        _ body: (ThreadLookupCache.Slot) throws -> Result
    ) rethrows -> Result {
        try slot(for: key, create: create)._withUnsafeGuaranteedRef(body)
    }

    /// The calling thread's memo slot for `key`, retained, creating the entry with `create` on
    /// first access: what a handle (`State`, `StoredState`, …) keeps.
    @inlinable @inline(__always)
    func retainedSlot(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> ThreadLookupCache.Slot {
        slot(for: key, create: create).takeUnretainedValue()
    }

    /// The calling thread's memo slot for `key`, creating the entry on first access.
    ///
    /// The slot is returned unretained: the thread's memo owns it, and it stays valid until this
    /// thread next creates or removes an entry or switches registries, so use it right away.
    @inlinable @inline(__always)
    func slot(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> Unmanaged<ThreadLookupCache.Slot> {
        if let slot = rememberedSlot(for: key) { return slot }
        return slotOnMiss(for: key, create: create)
    }

    /// The calling thread's memo slot for `key` if this thread has looked the entry up since
    /// the registry last removed one: the lock-free part of ``slot(for:create:)``, which also
    /// tells that the entry exists. Unretained, like that one's.
    @inlinable @inline(__always)
    func rememberedSlot(for key: borrowing EntryKey) -> Unmanaged<ThreadLookupCache.Slot>? {
        guard let cache = ThreadLookupCache.existing(key: threadKey) else { return nil }
        return cache._withUnsafeGuaranteedRef { $0.slot(for: key, registryStamp: stamp.load(ordering: .relaxed)) }
    }

    /// `body` applied to the calling thread's memo slot for `key`, or `nil` when this thread
    /// hasn't looked the entry up since the registry last removed one (see ``rememberedSlot(for:)``).
    @inlinable @inline(__always)
    func withRememberedSlot<Result>(for key: borrowing EntryKey, _ body: (ThreadLookupCache.Slot) -> Result) -> Result? {
        rememberedSlot(for: key)?._withUnsafeGuaranteedRef(body)
    }

    /// The rest of ``slot(for:create:)``, out of line: a thread's first lookup of `key`, or its
    /// first lookup since an entry was removed.
    @usableFromInline
    func slotOnMiss(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> Unmanaged<ThreadLookupCache.Slot> {
        let cache = ThreadLookupCache.current
        if let capture = cache.keyCapture {
            if capture.takes(key) {
                // A `KeyCapture` only wants the key: hand back an entry nobody else will see.
                return cache.rememberTransient(create(key))
            }
            // The declaration reads another entry (to choose its id, say): resolve it as usual.
            return cache.withCaptureSuspended { slotOnMiss(for: key, create: create) }
        }
        if cache.registryStamp != stamp.load(ordering: .relaxed) || cache.registryIdentity != identity {
            synchronize(cache)
        }
        // In sync as of a stamp at most a concurrent removal old: as good as an earlier lookup.
        if let slot = cache.slots.find(key) {
            return slot
        }
        let (entry, stampSeen) = lockedEntry(for: key, create: create)
        return cache.remember(entry, for: key, in: self, stamp: stampSeen)
    }

    /// Brings `cache` (the calling thread's memo) up to date with this registry: it forgets the
    /// entries removed since it last looked, or starts over for a registry it didn't serve or
    /// fell too far behind. The forgotten slots are released after the lock is.
    func synchronize(_ cache: ThreadLookupCache) {
        if cache.registryIdentity == identity, cache.registryStamp == stamp.load(ordering: .relaxed) { return }
        let (current, removed): (UInt64, [EntryKey]?) = lock.withLock {
            let current = stamp.load(ordering: .relaxed)
            guard cache.registryIdentity == identity else { return (current, nil) }
            return (current, storage.removals.keys(removedSince: cache.registryStamp))
        }
        cache.synchronize(registry: identity, stamp: current, forgetting: removed)
    }

    /// The entry for `key`, created if needed, and the stamp the registry had when it was found
    /// or added (a memo that remembers the entry must not claim a later stamp).
    func lockedEntry(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> (RegistryEntry, UInt64) {
        lock.lock()
        if let existing = createdEntry(for: key) {
            let current = stamp.load(ordering: .relaxed)
            lock.unlock()
            return (existing, current)
        }
        return createEntry(for: key, create: create)
    }

    /// Removes `entry` if it is still this registry's entry for its key; returns whether it was.
    ///
    /// The next lookup of the key, on any thread, creates a fresh entry. Whoever still holds the
    /// removed one — a handle, another thread's memo until it next looks something up — keeps a
    /// valid, detached entry that no lookup returns any more. The entry is released outside the
    /// lock (its value's `deinit` may run user code).
    @discardableResult
    func remove(_ entry: RegistryEntry) -> Bool {
        lock.lock()
        let removed = storage.entries.remove(entry.key) { $0 === entry }
        if removed != nil {
            storage.removals.record(entry.key, removedAt: stamp.load(ordering: .relaxed))
            stamp.store(Registry.nextSerial.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
        }
        lock.unlock()
        guard removed != nil else { return false }
        // The removing thread forgets the entry at once (if its memo serves this registry).
        let cache = ThreadLookupCache.current
        if cache.registryIdentity == identity { synchronize(cache) }
        return true
    }

    /// Returns the entry for `key` if it has been created.
    func existingEntry<Entry: RegistryEntry>(for key: EntryKey, as type: Entry.Type = Entry.self) -> Entry? {
        lock.withLock { createdEntry(for: key).map { unsafeDowncast($0, to: Entry.self) } }
    }

    /// Every created entry, in no particular order.
    var allEntries: [RegistryEntry] {
        lock.withLock { storage.entries.all }
    }

    /// The number of created entries.
    var count: Int {
        lock.withLock { storage.entries.count }
    }

    /// The created entry for `key`, if any. Called with the lock held.
    private func createdEntry(for key: EntryKey) -> RegistryEntry? {
        storage.entries.find(key)?.takeUnretainedValue()
    }

    /// Called with the lock held; returns with it released.
    private func createEntry(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> (RegistryEntry, UInt64) {
        let thread = ThreadID.current
        if awaitCreation(of: key, on: thread, until: { createdEntry(for: key) != nil }), let existing = createdEntry(for: key) {
            let current = stamp.load(ordering: .relaxed)
            lock.unlock()
            return (existing, current)
        }
        let creation = startCreation(of: key, on: thread)
        lock.unlock()

        let entry = create(key)

        lock.lock()
        storage.entries.add(entry, for: key)
        finishCreation(creation, on: thread)
        let current = stamp.load(ordering: .relaxed)
        lock.unlock()
        creationFinished.broadcast()
        return (entry, current)
    }

    /// Runs `fill` — which runs a factory — for the existing entry of `key` that has no value
    /// yet (a dependency whose overrides, set before its first use, all went), unless
    /// `isFilled` says it has one by now. Single flight, like a creation: a thread asking while
    /// another fills the entry waits for it, and a wait that would close a cycle stops with the
    /// chain of keys. `fill` runs with no lock held; `isFilled` runs with the registry's lock
    /// held, so it may only load atomics.
    func fill(_ key: EntryKey, isFilled: () -> Bool, fill: () -> Void) {
        let thread = ThreadID.current
        lock.lock()
        if awaitCreation(of: key, on: thread, until: isFilled) {
            lock.unlock()
            return
        }
        let creation = startCreation(of: key, on: thread)
        lock.unlock()

        fill()

        lock.lock()
        finishCreation(creation, on: thread)
        lock.unlock()
        creationFinished.broadcast()
    }

    /// Waits while another thread creates (or fills) the entry of `key`, until `isDone()`;
    /// returns whether it is done. `false` means no creation of `key` is pending: the caller
    /// starts one. Stops the process when waiting would close a cycle. Called with the lock
    /// held; returns with it held.
    private func awaitCreation(of key: EntryKey, on thread: ThreadID, until isDone: () -> Bool) -> Bool {
        var waitDeadline: timespec?
        var hasReportedWait = false
        while true {
            if isDone() { return true }
            guard let pending = storage.pending[key] else { return false }
            if let chain = cycle(waitingFor: pending, from: thread) {
                lock.unlock()
                DependencyCycle(chain: chain).stop()
            }
            storage.waiting[thread] = pending
            if hasReportedWait {
                lock.wait(on: creationFinished)
            } else {
                let deadline = waitDeadline ?? Condition.deadline(after: slowCreationThreshold)
                waitDeadline = deadline
                if !lock.wait(on: creationFinished, until: deadline) {
                    // Waiting unusually long: say where, once, without holding the lock. (Not
                    // while reporting already: the logger's own creation may be what hangs.)
                    hasReportedWait = true
                    let cache = ThreadLookupCache.current
                    if !cache.isReportingSlowCreation {
                        let message = slowCreationMessage(waitingFor: pending, from: thread)
                        storage.waiting[thread] = nil
                        lock.unlock()
                        cache.isReportingSlowCreation = true
                        Diagnostics.report(error: message)
                        cache.isReportingSlowCreation = false
                        lock.lock()
                    }
                }
            }
            storage.waiting[thread] = nil
        }
    }

    /// Records that `thread` creates the entry of `key`. Called with the lock held.
    private func startCreation(of key: EntryKey, on thread: ThreadID) -> PendingCreation {
        let creation = PendingCreation(key: key, owner: thread, parent: storage.running[thread])
        storage.pending[key] = creation
        storage.running[thread] = creation
        return creation
    }

    /// Records that `creation` is over. Called with the lock held.
    private func finishCreation(_ creation: PendingCreation, on thread: ThreadID) {
        storage.pending[creation.key] = nil
        storage.running[thread] = creation.parent
    }

    /// How long a thread waits for another thread's creation of an entry before it reports
    /// where it waits (once per wait). Lowered by tests.
    var slowCreationThreshold: Duration {
        get { .nanoseconds(slowCreationThresholdNanoseconds.load(ordering: .relaxed)) }
        set {
            let (seconds, attoseconds) = newValue.components
            slowCreationThresholdNanoseconds.store(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
        }
    }
    private let slowCreationThresholdNanoseconds = Atomic<Int64>(Registry.defaultSlowCreationThreshold)
    /// Ten seconds: far longer than any factory should run, short enough to find a hang.
    static let defaultSlowCreationThreshold: Int64 = 10_000_000_000

    /// The report of a thread that has waited ``slowCreationThreshold`` for `pending`: what it
    /// waits for, who creates that and what that thread waits for in turn. Called with the lock
    /// held.
    private func slowCreationMessage(waitingFor pending: PendingCreation, from thread: ThreadID) -> String {
        var report = SlowCreationReport(waited: slowCreationThreshold, thread: thread, creations: storage.running[thread]?.stack ?? [])
        var creation = pending
        var visited: Set<ThreadID> = [thread]
        while true {
            report.hops.append((creation.key, creation.owner, storage.running[creation.owner]?.stack ?? []))
            guard visited.insert(creation.owner).inserted, let next = storage.waiting[creation.owner] else { break }
            creation = next
        }
        return report.message
    }

    /// The chain of keys that waiting for `pending` on `thread` would deadlock on, or `nil`.
    private func cycle(waitingFor pending: PendingCreation, from thread: ThreadID) -> [EntryKey]? {
        var chain = storage.running[thread]?.stack ?? []
        chain.append(pending.key)
        var creation = pending
        // Each hop follows a distinct blocked thread, so the walk is bounded by their number.
        for _ in 0...storage.waiting.count {
            if creation.owner == thread { return chain }
            guard let next = storage.waiting[creation.owner] else { return nil }
            if let innermost = storage.running[creation.owner] {
                let ownerStack = innermost.stack
                if let index = ownerStack.firstIndex(of: creation.key) {
                    chain.append(contentsOf: ownerStack[(index + 1)...])
                }
            }
            chain.append(next.key)
            creation = next
        }
        return nil
    }
}
