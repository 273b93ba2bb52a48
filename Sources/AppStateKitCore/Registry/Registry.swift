import Synchronization

/// The lock-protected cache of entries behind one ``Application``.
///
/// Every lookup takes the table's lock for one probe. Creation is single-flight: the first
/// thread to ask for a missing entry runs its initial value or factory *outside* every lock while
/// other threads asking for the same key wait; other keys are never blocked. When waiting would
/// close a cycle (on one thread or across threads), the process stops naming the chain of keys
/// instead of hanging. An entry without a value gets it the same way (``fill(_:isFilled:fill:)``).
///
/// Entries are never replaced, but can be removed (``remove(_:)``), which moves ``stamp``; a
/// handle holds its entry strongly, so a removed entry stays alive, detached, while referred to.
@usableFromInline
package final class Registry: @unchecked Sendable {
    // Safe: `storage` is only touched with `lock` held; `table` is a `LockedBox`, `identity`
    // immutable and `stamp` atomic. A bare lock because creation waits on `creationFinished`.
    private let lock = Lock(order: .registry)
    /// The created entries. Changed only with `lock` held too (lock order: `lock`, then
    /// `table`), so a creation's bookkeeping and the table agree: the table's changes take a
    /// ``RegistryLockHeld``, which only this file makes, right after taking `lock`.
    @usableFromInline package let table = LockedBox(EntryTable(), order: .registryTable)
    /// Distinguishes this registry from every other one; never reused, unlike an address.
    @usableFromInline package let identity: UInt64
    /// 1 once this is the shared application's registry (see ``readThroughViews()``), else 0.
    @usableFromInline package let readsThroughViews = AtomicWord(0)
    /// Moves to a fresh, larger number on every removal (written with `lock` held), so whoever
    /// remembers a resolution made through this registry can tell it may be stale.
    @usableFromInline package let stamp: Atomic<UInt64>
    private static let nextSerial = Atomic<UInt64>(0)
    private let creationFinished = Condition()
    private var storage = Storage()

    private struct Storage: ~Copyable {
        /// Entries whose creation is running, by key.
        var pending: [EntryKey: PendingCreation] = [:]
        /// The innermost creation each thread is running.
        var running: [ThreadID: PendingCreation] = [:]
        /// The creation each blocked thread is waiting for.
        var waiting: [ThreadID: PendingCreation] = [:]
    }

    init() {
        identity = Registry.nextSerial.add(1, ordering: .relaxed).newValue
        stamp = Atomic(identity)
    }

    deinit {
        ThreadViews.forget(registry: identity)
    }

    /// Has lookups go through the calling threads' views (``ThreadViews``) from now on: for the
    /// shared application's registry, which lives as long as the process. Other registries (an
    /// isolated application's, made and released per scope or test) are read under the table's
    /// lock, so releasing one releases its entries at once instead of when each thread that
    /// read them lets its views go.
    func readThroughViews() {
        readsThroughViews.storeSequentiallyConsistent(1)
    }

    /// Returns the entry for `key`, creating it with `create` (at most once per key, never with
    /// a lock held) on first access. The key names the entry's kind and value type, so the entry
    /// is of the subclass the caller asks for (checked in debug builds).
    @inlinable
    package func entry<Entry: RegistryEntry>(
        for key: EntryKey,
        as type: Entry.Type = Entry.self,
        create: (EntryKey) -> any RegistryEntry
    ) -> Entry {
        let entry = readsThroughViews.loadRelaxed() != 0 ? view(for: key, create: create).entry : (existingEntry(for: key) ?? createdEntry(for: key, create: create))
        #if DEBUG
        Registry.checkType(of: entry, is: Entry.self, for: key)
        #endif
        return unsafeDowncast(entry, to: Entry.self)
    }

    /// The calling thread's view of the entry for `key` (see ``ThreadViews``), creating the
    /// entry with `create` on first access as ``entry(for:as:create:)`` does.
    @inlinable
    package func view(for key: EntryKey, create: (EntryKey) -> any RegistryEntry) -> EntryView {
        if readsThroughViews.loadRelaxed() != 0, let view = ThreadViews.withCurrent({ $0.withView(in: self, for: key) { $0 } }) {
            return view
        }
        return createdView(for: key, create: create)
    }

    /// ``view(for:create:)`` when the calling thread has no view yet: the table's entry (under
    /// its lock) or a new one, filed in the thread's views.
    @usableFromInline
    package func createdView(for key: EntryKey, create: (EntryKey) -> any RegistryEntry) -> EntryView {
        // Read before the lookup: a removal after it leaves the view's slot unusable.
        let stamp = self.stamp.load(ordering: .acquiring)
        let entry = existingEntry(for: key) ?? createdEntry(for: key, create: create)
        return view(of: entry, stamp: stamp)
    }

    /// The calling thread's view of the entry for `key` if the entry exists; creates nothing.
    @usableFromInline
    package func existingView(for key: EntryKey) -> EntryView? {
        let stamp = self.stamp.load(ordering: .acquiring)
        guard let entry = existingEntry(for: key) else { return nil }
        return view(of: entry, stamp: stamp)
    }

    /// The calling thread's view of `entry`, filed in its views; for a registry read without
    /// them, a view of no thread (whose reads take the entry's lock).
    private func view(of entry: any RegistryEntry, stamp: UInt64) -> EntryView {
        guard readsThroughViews.loadRelaxed() != 0 else { return entry.makeView(owner: 0) }
        return ThreadViews.withCurrent { $0.keep(entry, of: self, stamp: stamp) }
    }

    #if DEBUG
    /// Stops if what the registry holds for `key` (its entry, a dependency's table snapshot) is
    /// not the type the key names.
    @usableFromInline
    package static func checkType<Expected: AnyObject>(of object: AnyObject, is type: Expected.Type, for key: borrowing EntryKey) {
        precondition(object is Expected, "AppStateKit: internal error: the registry holds a \(Swift.type(of: object)) for \(key.readable), not a \(Expected.self)")
    }

    /// Stops unless `view`, found in the calling thread's views for `key`, belongs to the
    /// calling thread and is of the entry the table holds for `key` (unless a removal moved the
    /// stamp meanwhile, which the next lookup sees). Skipped while either lock is busy (a
    /// removal holds both until the stamp has moved), so a read under them stays possible.
    @usableFromInline
    package func checkView(_ view: EntryView, for key: borrowing EntryKey) {
        precondition(view.owner == ThreadID.current.rawValue, "AppStateKit: internal error: a thread found another thread's view of \(key.readable)")
        let before = stamp.load(ordering: .acquiring)
        guard lock.tryLock() else { return }
        defer { lock.unlock() }
        guard table.lock.tryLock() else { return }
        let held = table.value.pointee.find(key)
        table.lock.unlock()
        precondition(held === view.entry || stamp.load(ordering: .acquiring) != before, "AppStateKit: internal error: a thread's view of \(key.readable) is not the registry's entry")
    }
    #endif

    /// ``entry(for:as:create:)`` for callers that make the entry themselves.
    package func entry<Entry: RegistryEntry>(for key: EntryKey, create: () -> Entry) -> Entry {
        entry(for: key, as: Entry.self) { _ in create() }
    }

    /// Runs `body` with the calling thread's view of the entry for `key` (see ``ThreadViews``);
    /// `nil` without an entry (nothing is created).
    @inlinable
    package func withExistingView<Result>(for key: borrowing EntryKey, _ body: (EntryView) -> Result?) -> Result? {
        if readsThroughViews.loadRelaxed() != 0, let found = ThreadViews.withCurrent({ $0.withView(in: self, for: key, { body($0) }) }) {
            return found
        }
        guard let view = existingView(for: copy key) else { return nil }
        return body(view)
    }

    /// `view` as the value view it is: the key of its entry names the value type (checked in
    /// debug builds).
    @inlinable @inline(__always)
    package static func valueView<Value>(_ view: EntryView, as value: Value.Type) -> ValueView<Value> {
        #if DEBUG
        checkType(of: view, is: ValueView<Value>.self, for: view.core.key)
        #endif
        return unsafeDowncast(view, to: ValueView<Value>.self)
    }

    /// `view`'s entry as the subclass its key names (checked in debug builds).
    @inlinable @inline(__always)
    package static func entry<Entry: RegistryEntry>(of view: EntryView, as type: Entry.Type) -> Entry {
        #if DEBUG
        checkType(of: view.entry, is: Entry.self, for: view.core.key)
        #endif
        return unsafeDowncast(view.entry, to: Entry.self)
    }

    func existingEntry(for reference: EntryReference) -> (any RegistryEntry)? {
        table.withLock { $0.find(reference) }
    }

    @usableFromInline
    package func existingEntry(for key: borrowing EntryKey) -> (any RegistryEntry)? {
        table.withLock { $0.find(key) }
    }

    /// The entry for `key`, created with `create` unless another thread created it first.
    @usableFromInline
    package func createdEntry(for key: EntryKey, create: (EntryKey) -> any RegistryEntry) -> any RegistryEntry {
        var created: (any RegistryEntry)?
        singleFlight(key, isDone: { existingEntry(for: key) != nil }, run: { created = create(key) }) { held in
            if let created { table.withLock { $0.insert(created, holding: held) } }
        }
        // Created by another thread; if removed again since, create it anew.
        guard let created else { return existingEntry(for: key) ?? createdEntry(for: key, create: create) }
        return created
    }

    /// Removes `entry` if it is still this registry's entry for its key; returns whether it was.
    /// The next lookup of the key creates a fresh entry; whoever holds the removed one keeps a
    /// valid, detached entry. It is released outside the lock (its value's `deinit` may run
    /// user code).
    @discardableResult
    func remove(_ entry: any RegistryEntry) -> Bool {
        let removed = lock.withLock {
            let held = RegistryLockHeld()
            guard table.withLock({ $0.remove(entry, holding: held) }) else { return false }
            stamp.store(Registry.nextSerial.add(1, ordering: .relaxed).newValue, ordering: .releasing)
            return true
        }
        // Other threads' views of it stop being used (the stamp moved) and go when their slot does.
        if removed { ThreadViews.forget(registry: identity, entry: entry) }
        return removed
    }

    /// Every created entry, in no particular order.
    var allEntries: [any RegistryEntry] {
        table.withLock { $0.all }
    }

    var count: Int {
        table.withLock { $0.count }
    }

    /// Runs `fill` (a factory) for the existing entry of `key` that has no value yet (a
    /// dependency whose overrides, set before its first use, all went), unless `isFilled`.
    /// Single flight, with cycle detection, like a creation. `fill` runs with no lock held;
    /// `isFilled` runs with the registry's lock held, so it may only load atomics.
    func fill(_ key: EntryKey, isFilled: () -> Bool, fill: () -> Void) {
        singleFlight(key, isDone: isFilled, run: fill) { _ in }
    }

    /// Runs `run` for `key` with no lock held unless `isDone()` (called with the lock held), or
    /// waits while another thread runs it for `key`; then `finish` with the lock held, before
    /// waiting threads wake.
    private func singleFlight(_ key: EntryKey, isDone: () -> Bool, run: () -> Void, finish: (borrowing RegistryLockHeld) -> Void) {
        let thread = ThreadID.current
        lock.lock()
        if awaitCreation(of: key, on: thread, until: isDone) {
            lock.unlock()
            return
        }
        let creation = startCreation(of: key, on: thread)
        lock.unlock()

        run()

        lock.lock()
        finish(RegistryLockHeld())
        finishCreation(creation, on: thread)
        lock.unlock()
        creationFinished.broadcast()
    }

    /// Waits while another thread creates (or fills) the entry of `key`, until `isDone()`;
    /// returns whether it is done. `false` means no creation of `key` is pending: the caller
    /// starts one. Stops the process when waiting would close a cycle. Called with the lock
    /// held; returns with it held.
    private func awaitCreation(of key: EntryKey, on thread: ThreadID, until isDone: () -> Bool) -> Bool {
        var waitDeadline: Condition.Deadline?
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
                let deadline = waitDeadline ?? Condition.deadline(after: .milliseconds(slowCreationMilliseconds.load(ordering: .relaxed)))
                waitDeadline = deadline
                if !lock.wait(on: creationFinished, until: deadline) {
                    // Waiting unusually long: say where, once, without holding the lock. (Not
                    // while reporting already: the logger's own creation may be what hangs.)
                    hasReportedWait = true
                    if !Registry.isReportingSlowCreation {
                        let message = slowCreationMessage(waitingFor: pending, from: thread)
                        storage.waiting[thread] = nil
                        lock.unlock()
                        Registry.$isReportingSlowCreation.withValue(true) {
                            Diagnostics.report(error: message)
                        }
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

    /// Whether the calling task is reporting a slow creation, so a wait inside the report
    /// (the logger's own creation, say) doesn't report again.
    @TaskLocal private static var isReportingSlowCreation = false

    /// How long a thread waits for another thread's creation of an entry before it reports
    /// where it waits (once per wait): ten seconds, far longer than any factory should run,
    /// short enough to find a hang. Lowered by tests.
    let slowCreationMilliseconds = Atomic<Int>(10_000)

    /// The report of a thread that has waited for `pending`: what it waits for, who creates
    /// that and what that thread waits for in turn. Called with the lock held.
    private func slowCreationMessage(waitingFor pending: PendingCreation, from thread: ThreadID) -> String {
        let waited = Duration.milliseconds(slowCreationMilliseconds.load(ordering: .relaxed))
        var report = SlowCreationReport(waited: waited, thread: thread, creations: storage.running[thread]?.stack ?? [])
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

/// Proof that the calling thread holds a ``Registry``'s own lock: the table's changes
/// (``EntryTable/insert(_:holding:)``, ``EntryTable/remove(_:holding:)``) take one, and only this
/// file makes one, right after taking that lock, so a change of the table under the table's
/// lock alone, or in the wrong lock order, does not compile outside this file. Not copyable, and
/// empty: it costs nothing at run time. (The debug-build order check, ``LockOrder``, covers the
/// waits this can't express.)
struct RegistryLockHeld: ~Copyable {
    fileprivate init() {}
}

extension EntryTable {
    /// Runs `body` with a table no registry owns (the table's own tests) and the proof its
    /// changes take: no other thread can reach such a table, so no lock guards it.
    static func unshared<Result>(_ body: (inout EntryTable, borrowing RegistryLockHeld) -> Result) -> Result {
        var table = EntryTable()
        return body(&table, RegistryLockHeld())
    }
}

/// The registry's created entries: an open-addressing table over ``EntryKey/fastHash``, probed
/// linearly. A probe compares stored hashes and looks at an entry's key only when its hash
/// matches, so a lookup neither hashes nor copies a key. Removal shifts the following entries back (no tombstones): a lookup stops at the first empty bucket.
@usableFromInline
package struct EntryTable: Sendable {
    /// Each bucket's entry's ``EntryKey/fastHash``; `nil` for an empty bucket.
    @usableFromInline package var hashes: [Int?] = Array(repeating: nil, count: 16)
    @usableFromInline package var entries: [(any RegistryEntry)?] = Array(repeating: nil, count: 16)
    private(set) var count = 0

    /// `body` applied to the entry of the occupied bucket `index`, borrowed from the array's
    /// storage: the subscript would retain and release it, writing shared memory.
    @inlinable @inline(__always)
    package func withEntry<Result>(at index: Int, _ body: (any RegistryEntry) -> Result) -> Result {
        entries.withUnsafeBufferPointer { body($0[index]!) }
    }

    @inlinable
    package func index(of key: borrowing EntryKey) -> Int? {
        let mask = hashes.count - 1
        var index = key.fastHash & mask
        while let hash = hashes[index] {
            if hash == key.fastHash, withEntry(at: index, { $0.holds(key) }) { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    func find(_ key: borrowing EntryKey) -> (any RegistryEntry)? {
        index(of: key).flatMap { entries[$0] }
    }

    func find(_ reference: EntryReference) -> (any RegistryEntry)? {
        let mask = hashes.count - 1
        var index = reference.fastHash & mask
        while hashes[index] != nil {
            if withEntry(at: index, { ObjectIdentifier($0) }) == reference.object { return entries[index] }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Adds `entry`, whose key the table doesn't hold yet; only while the registry's lock is
    /// `held`.
    mutating func insert(_ entry: any RegistryEntry, holding held: borrowing RegistryLockHeld) {
        assert(find(entry.core.key) == nil, "AppStateKit: internal error: \(entry.core.key.readable) was added to the registry twice")
        if (count + 1) * 4 > hashes.count * 3 { grow() }
        place(entry)
        count += 1
    }

    /// Removes `entry` if the table holds it (the very object); returns whether it did. Only
    /// while the registry's lock is `held`.
    mutating func remove(_ entry: any RegistryEntry, holding held: borrowing RegistryLockHeld) -> Bool {
        guard let index = index(of: entry.core.key), entries[index] === entry else { return false }
        clear(index)
        count -= 1
        closeGap(at: index)
        return true
    }

    var all: [any RegistryEntry] { entries.compactMap { $0 } }

    /// Moves the entries after the emptied bucket `gap` back where a lookup would miss them.
    private mutating func closeGap(at gap: Int) {
        let mask = hashes.count - 1
        var gap = gap
        var index = (gap + 1) & mask
        while let hash = hashes[index] {
            // The entry may move into the gap unless its home is cyclically within (gap, index].
            let home = hash & mask
            if (gap - home) & mask < (index - home) & mask {
                hashes[gap] = hash
                entries[gap] = entries[index]
                clear(index)
                gap = index
            }
            index = (index + 1) & mask
        }
    }

    private mutating func clear(_ index: Int) {
        hashes[index] = nil
        entries[index] = nil
    }

    private mutating func place(_ entry: any RegistryEntry) {
        let mask = hashes.count - 1
        var index = entry.core.key.fastHash & mask
        while hashes[index] != nil { index = (index + 1) & mask }
        hashes[index] = entry.core.key.fastHash
        entries[index] = entry
    }

    private mutating func grow() {
        let oldEntries = entries
        let size = hashes.count * 2
        hashes = Array(repeating: nil, count: size)
        entries = Array(repeating: nil, count: size)
        for entry in oldEntries {
            if let entry { place(entry) }
        }
    }
}

/// An immutable box, so a value can be handed between threads by reference (a dependency's
/// current instance, kept in the registry's table).
@usableFromInline
package final class ValueBox<Value: Sendable>: Sendable {
    @usableFromInline package let value: Value

    @usableFromInline
    package init(_ value: Value) {
        self.value = value
    }
}
