#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A per-thread memo of registry lookups, so that reading an existing entry takes no lock and
/// touches no memory shared with other threads.
///
/// The memo serves one registry at a time and records the registry's stamp it is in sync with
/// (stamps are drawn from one growing counter, so a stamp also names its registry). A lookup
/// answers from the memo only while the registry's stamp still equals the recorded one; once
/// the registry removes an entry, its stamp changes and the next lookup first forgets the keys
/// removed since (see ``Registry/synchronize(_:)``). Touching another registry starts the memo
/// afresh. Each slot holds its entry strongly, so a slot handed out before a removal stays
/// valid. Each slot can also memoise a dependency's current instance together with the entry
/// version it was read at (see `DependencyEntry`).
///
/// The slots live in an ``ObjectTable`` over ``EntryKey/fastHash``; keys are compared with the
/// key the slot's entry holds. The memo's fields are only touched by the owning thread.
@usableFromInline
final class ThreadLookupCache {
    /// A remembered lookup.
    ///
    /// Handles (`State`, `Dependency`) hold the slot rather than the entry: the slot belongs to
    /// one thread, so retaining it writes a cache line no other thread reads, while every
    /// thread reading an entry would otherwise write the entry's shared reference count.
    @usableFromInline
    final class Slot: KeyedObject, @unchecked Sendable {
        // Safe: `unmanagedEntry`, `retainedEntry` and `registry` are immutable; `snapshot` and `version` are
        // only touched by the thread whose memo made the slot (a handle carried to another
        // thread reads only the immutable fields).

        /// The entry, unretained, for the read path: `retainedEntry` keeps it alive.
        @usableFromInline let unmanagedEntry: Unmanaged<RegistryEntry>
        /// Keeps the entry alive as long as the slot, even after the registry removed it.
        let retainedEntry: RegistryEntry
        /// Keeps the entry's registry alive as long as the slot, so a handle keeps its whole
        /// application (an isolated one, say) alive; `nil` for a transient slot.
        @usableFromInline let registry: Registry?
        /// A snapshot of the entry's value box, valid while the entry's version equals `version`.
        /// Only the thread whose memo made the slot touches these two (checked in debug builds),
        /// so they live behind a pointer: the runtime's exclusivity tracking of a class's stored
        /// properties (a call in and out of the runtime per access) guards nothing here.
        @usableFromInline let memo: UnsafeMutablePointer<(snapshot: AnyObject?, version: UInt64)>
        #if DEBUG
        /// The thread whose memo made the slot: the only one allowed to touch the memo fields.
        @usableFromInline let ownerThread = ThreadID.current
        #endif

        /// The entry (see ``unmanagedEntry``), as the subclass its key stands for.
        ///
        /// An ``EntryKey`` names the entry's kind and value type, so every entry found for a key
        /// is of the one subclass the caller asks for; debug builds check it.
        @inlinable @inline(__always)
        func entry<Entry: RegistryEntry>(as type: Entry.Type) -> Entry {
            #if DEBUG
            checkEntryType(Entry.self)
            #endif
            return unsafeDowncast(unmanagedEntry.takeUnretainedValue(), to: Entry.self)
        }

        /// Runs `body` with the entry, as the subclass its key stands for, without retaining it
        /// (the slot keeps it alive). This is the read path's only way to an entry.
        @inlinable @inline(__always)
        func withEntry<Entry: RegistryEntry, Result>(as type: Entry.Type, _ body: (Entry) throws -> Result) rethrows -> Result {
            #if DEBUG
            checkEntryType(Entry.self)
            #endif
            return try unmanagedEntry._withUnsafeGuaranteedRef { try body(unsafeDowncast($0, to: Entry.self)) }
        }

        /// The snapshot this thread memoised at `version`, or `nil` if there is none or the
        /// entry has moved on. `type` must be the type the snapshot was memoised as.
        @inlinable @inline(__always)
        func memoizedSnapshot<Snapshot: AnyObject>(at version: UInt64, as type: Snapshot.Type) -> Snapshot? {
            assertOwnerThread()
            guard memo.pointee.version == version, let snapshot = memo.pointee.snapshot else { return nil }
            assert(snapshot is Snapshot, "AppStateKit: internal error: a memoised snapshot is not a \(Snapshot.self)")
            return unsafeDowncast(snapshot, to: Snapshot.self)
        }

        /// Memoises `snapshot`, read at `version`, for this thread's next read of the entry.
        @inlinable
        func memoize(_ snapshot: AnyObject, at version: UInt64) {
            assertOwnerThread()
            memo.pointee = (snapshot, version)
        }

        /// Stops (debug builds) if the calling thread is not the one whose memo made the slot.
        @inlinable @inline(__always)
        func assertOwnerThread() {
            #if DEBUG
            if ThreadID.current != ownerThread { touchedByOtherThread() }
            #endif
        }

        #if DEBUG
        /// Stops if the entry is not an `Entry` (an ``EntryKey`` that fails to name its subclass).
        @usableFromInline
        func checkEntryType<Entry: RegistryEntry>(_ type: Entry.Type) {
            let entry = unmanagedEntry.takeUnretainedValue()
            precondition(entry is Entry, "AppStateKit: internal error: the entry for \(entry.key.readable) is not a \(Entry.self)")
        }

        @usableFromInline
        func touchedByOtherThread() -> Never {
            let key = withEntry(as: RegistryEntry.self) { $0.key.readable }
            preconditionFailure("AppStateKit: internal error: a thread touched another thread's memo slot of \(key)")
        }
        #endif

        /// Whether this slot remembers the entry for `key`, compared in place (no key copy, no
        /// retain of the entry).
        @inlinable @inline(__always)
        func holds(_ key: borrowing EntryKey) -> Bool {
            unmanagedEntry._withUnsafeGuaranteedRef { $0.key.matches(key) }
        }

        init(entry: RegistryEntry, registry: Registry?) {
            self.unmanagedEntry = Unmanaged.passUnretained(entry)
            self.retainedEntry = entry
            self.registry = registry
            self.memo = .allocate(capacity: 1)
            memo.initialize(to: (nil, .max))
        }

        deinit {
            memo.deinitialize(count: 1)
            memo.deallocate()
        }
    }

    /// What the read path reads, behind a pointer: only the owning thread touches the memo, so
    /// the runtime's exclusivity tracking of a class's stored properties (a call in and out of
    /// the runtime per access) would guard nothing.
    @usableFromInline struct ReadFields: ~Copyable {
        @usableFromInline var registryStamp: UInt64 = 0
        @usableFromInline var isCapturingKeys = false
        @usableFromInline var slots = ObjectTable<Slot>()
    }
    @usableFromInline let fields: UnsafeMutablePointer<ReadFields>

    /// The stamp of the registry the memo is in sync with (see ``Registry/stamp``); 0 for none.
    @inlinable var registryStamp: UInt64 {
        get { fields.pointee.registryStamp }
        set { fields.pointee.registryStamp = newValue }
    }
    /// The ``Registry/identity`` of the registry the memo serves; 0 for none.
    var registryIdentity: UInt64 = 0
    /// The key capture running on this thread, if any (see ``KeyCapturing``).
    var keyCapture: (any KeyCapturing)? {
        didSet { isCapturingKeys = keyCapture != nil }
    }
    @inlinable var isCapturingKeys: Bool {
        get { fields.pointee.isCapturingKeys }
        set { fields.pointee.isCapturingKeys = newValue }
    }
    /// Whether this thread is reporting a slow creation (see `Registry.createEntry`), so a wait
    /// inside the report doesn't report again.
    var isReportingSlowCreation = false
    /// How many scoped overrides this thread has served; lets a factory run inside a scope tell
    /// whether it depended on one (see `ScopedOverride.scopedDependency`).
    var overridesServed = 0
    /// The remembered slots, retained by the table, so a lookup hands one out without touching
    /// its reference count.
    @inlinable var slots: ObjectTable<Slot> {
        _read { yield fields.pointee.slots }
        _modify { yield &fields.pointee.slots }
    }
    /// Keeps the last transient slot made during a key capture alive for its caller.
    var transientSlot: Slot?
    @usableFromInline
    init() {
        fields = .allocate(capacity: 1)
        fields.initialize(to: ReadFields())
    }

    deinit {
        // The slots are released once the memo's other fields are gone (see `startOver`).
        let slots = fields.move().slots
        fields.deallocate()
        _ = consume slots
    }

    /// Runs `body` with this thread's key capture, if any, paused: lookups inside it are real.
    func withCaptureSuspended<Result>(_ body: () -> Result) -> Result {
        let capture = keyCapture
        keyCapture = nil
        defer { keyCapture = capture }
        return body()
    }

    /// The calling thread's memo.
    static var current: ThreadLookupCache {
        if let pointer = pthread_getspecific(threadKey) {
            return Unmanaged<ThreadLookupCache>.fromOpaque(pointer).takeUnretainedValue()
        }
        return makeCurrent()
    }

    /// The calling thread's memo if it has one, without retaining it. `key` is ``threadKey``,
    /// passed in by the caller (a registry keeps a copy) so the read path touches no global.
    @inlinable @inline(__always)
    static func existing(key: pthread_key_t) -> Unmanaged<ThreadLookupCache>? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<ThreadLookupCache>.fromOpaque(pointer)
    }

    @usableFromInline
    static func makeCurrent() -> ThreadLookupCache {
        let cache = ThreadLookupCache()
        let result = pthread_setspecific(threadKey, Unmanaged.passRetained(cache).toOpaque())
        precondition(result == 0, "AppStateKit: pthread_setspecific failed with \(result)")
        return cache
    }

    /// The remembered slot for `key`, if the memo is in sync with the registry whose current
    /// stamp is `stamp`. The slot stays valid until this thread next creates or removes an entry
    /// or switches registries.
    @inlinable @inline(__always)
    func slot(for key: borrowing EntryKey, registryStamp stamp: UInt64) -> Unmanaged<Slot>? {
        guard registryStamp == stamp, !isCapturingKeys else { return nil }
        return slots.find(key)
    }

    /// Remembers `entry` for `key` of the registry `identity`, where it was found or created
    /// while the registry's stamp was `stamp`.
    func remember(_ entry: RegistryEntry, for key: EntryKey, in registry: Registry, stamp: UInt64) -> Unmanaged<Slot> {
        let identity = registry.identity
        // Looping: forgetting the previous registry can run code that switches again (below).
        while registryIdentity != identity {
            startOver(registry: identity, stamp: stamp)
        }
        // Removals after `stamp` may concern this entry: have the next lookup check from there.
        if stamp < registryStamp { registryStamp = stamp }
        // Not remembered yet (the caller looked), and a nested creation can't have added the
        // same key: that would be a dependency cycle, which stops the process.
        let slot = Slot(entry: entry, registry: registry)
        slots.add(slot, for: key)
        return Unmanaged.passUnretained(slot)
    }

    /// Keeps `slot` alive until the next transient slot and returns it unretained.
    func rememberTransient(_ entry: RegistryEntry) -> Unmanaged<Slot> {
        let slot = Slot(entry: entry, registry: nil)
        transientSlot = slot
        return Unmanaged.passUnretained(slot)
    }

    /// Brings the memo in sync with the registry `identity` at `stamp`: forgets the slots of
    /// `removed` keys, or, when `removed` is `nil` (another registry, or too far behind), every
    /// slot.
    func synchronize(registry identity: UInt64, stamp: UInt64, forgetting removed: [EntryKey]?) {
        guard let removed, registryIdentity == identity else {
            startOver(registry: identity, stamp: stamp)
            return
        }
        // Released only once the memo is consistent again (see `startOver`).
        var forgotten: [Slot] = []
        for key in removed {
            if let slot = slots.remove(key) { forgotten.append(slot) }
        }
        registryStamp = stamp
        _ = consume forgotten
    }

    /// Empties the memo for the registry `identity` at `stamp`, starting small again (the next
    /// registry may be a small, short-lived one).
    ///
    /// The old slots are released only once the memo is consistent again: releasing a slot no
    /// handle holds any more may free an entry, and with it values whose `deinit` may read
    /// entries — through this very memo.
    private func startOver(registry identity: UInt64, stamp: UInt64) {
        let previous = slots.takeAll()
        registryIdentity = identity
        registryStamp = stamp
        _ = consume previous
    }

    /// The pthread key of the memo; its destructor releases a thread's memo when the thread exits.
    static let threadKey: pthread_key_t = ThreadLocalKey.releasingObjects()
}
