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
/// Lookups take the lock for a dictionary probe only. Creation is single-flight: the first
/// thread to ask for a missing entry runs its initial value or factory *outside* the lock while
/// other threads asking for the same key wait; threads asking for other keys, existing or new, are
/// never blocked by it. A factory may resolve further entries (nested creation) from any thread.
/// When waiting would close a cycle (A's factory needs B whose factory needs A, on one thread or
/// across threads), the process stops with a message naming the chain of keys instead of hanging.
///
/// Entries are never removed or replaced once created, which lets each thread memoise its
/// lookups (`ThreadLookupCache`): reading an existing entry takes no lock at all.
@usableFromInline
final class Registry: @unchecked Sendable {
    // Safe: `storage` is only read or written while `lock` is held; `serial` is immutable.
    private let lock = Lock()
    /// Distinguishes this registry in per-thread memos; never reused, unlike an address.
    @usableFromInline let serial: UInt64 = Registry.nextSerial.add(1, ordering: .relaxed).newValue
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
    }

    init() {}

    /// Returns the entry for `key`, creating it with `create` on first access.
    ///
    /// `create` runs at most once per key and never with the registry lock held.
    @inlinable
    func entry<Entry: RegistryEntry>(
        for key: EntryKey,
        as type: Entry.Type = Entry.self,
        create: () -> Entry
    ) -> Entry {
        unsafeDowncast(slot(for: key, create: { _ in create() })._withUnsafeGuaranteedRef { $0.entry }, to: Entry.self)
    }

    /// The calling thread's memo slot for `key`, creating the entry on first access.
    ///
    /// The slot is returned unretained: the thread's memo owns it, and it stays valid until this
    /// thread next creates an entry or switches registries, so use it right away.
    @inlinable @inline(__always)
    func slot(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> Unmanaged<ThreadLookupCache.Slot> {
        if let cache = ThreadLookupCache.existing(key: threadKey),
            let slot = cache._withUnsafeGuaranteedRef({ $0.slot(for: key, registrySerial: serial) })
        {
            return slot
        }
        return slotOnMiss(for: key, create: create)
    }

    /// The rest of ``slot(for:create:)``, out of line: a thread's first lookup of `key`.
    @usableFromInline
    func slotOnMiss(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> Unmanaged<ThreadLookupCache.Slot> {
        let cache = ThreadLookupCache.current
        if cache.isCapturingKeys {
            // A `KeyCapture` only wants the key: hand back an entry nobody else will see.
            return cache.rememberTransient(create(key))
        }
        if let slot = cache.slot(for: key, registrySerial: serial) {
            return slot
        }
        return cache.remember(lockedEntry(for: key, create: create), for: key, in: self)
    }

    func lockedEntry(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> RegistryEntry {
        lock.lock()
        if let existing = createdEntry(for: key) {
            lock.unlock()
            return existing
        }
        return createEntry(for: key, create: create)
    }

    /// Returns the entry for `key` if it has been created.
    func existingEntry<Entry: RegistryEntry>(for key: EntryKey, as type: Entry.Type = Entry.self) -> Entry? {
        lock.withLock { createdEntry(for: key).map { unsafeDowncast($0, to: Entry.self) } }
    }

    /// Whether the entry for `key` exists; answered from the calling thread's memo when it can,
    /// so the common case takes no lock.
    func hasEntry(for key: EntryKey) -> Bool {
        let remembered = ThreadLookupCache.current.slot(for: key, registrySerial: serial) != nil
        return remembered || existingEntry(for: key, as: RegistryEntry.self) != nil
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
    private func createEntry(for key: EntryKey, create: (EntryKey) -> RegistryEntry) -> RegistryEntry {
        let thread = ThreadID.current
        while true {
            if let existing = createdEntry(for: key) {
                lock.unlock()
                return existing
            }
            guard let pending = storage.pending[key] else { break }
            if let chain = cycle(waitingFor: pending, from: thread) {
                lock.unlock()
                DependencyCycle(chain: chain).stop()
            }
            storage.waiting[thread] = pending
            lock.wait(on: creationFinished)
            storage.waiting[thread] = nil
        }
        let creation = PendingCreation(key: key, owner: thread, parent: storage.running[thread])
        storage.pending[key] = creation
        storage.running[thread] = creation
        lock.unlock()

        let entry = create(key)

        lock.lock()
        storage.entries.add(entry, for: key)
        storage.pending[key] = nil
        storage.running[thread] = creation.parent
        lock.unlock()
        creationFinished.broadcast()
        return entry
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
