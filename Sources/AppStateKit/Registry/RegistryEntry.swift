import Observation

/// The base class of every value the registry caches: states, dependencies and persisted states.
///
/// Subclasses are generic over their value and their type is part of the ``EntryKey``, so the
/// registry hands back the exact subclass without a dynamic cast. Subclasses protect their own
/// mutable fields. Lock order: the registry calls into an entry under its own locks only to read
/// its immutable key; an entry calls the registry only with no lock of its own held.
///
/// Each entry is its own `Observable` subject, so `withObservationTracking` registers interest in
/// exactly the entries a closure reads.
@usableFromInline
class RegistryEntry: Observable, @unchecked Sendable {
    // Safe: `key`, `registrar`, `observedKeyPath`, `wasTracked` and `streamCount` are immutable,
    // `ObservationRegistrar` is thread-safe and the words are atomic; subclasses guard their
    // mutable state with their own locks.

    @usableFromInline let key: EntryKey

    /// The entry's own registrar (a registrar matches observers by key path only, so it can't
    /// be shared between subjects).
    @usableFromInline let registrar = ObservationRegistrar()

    /// 1 once a read of this entry has been reported to the registrar (``trackAccess()``), else
    /// 0; never cleared, since the registrar doesn't say when its observers go.
    ///
    /// Observation registers an observer only for entries its tracked closure read, and every
    /// read reports itself before it reads the value. So while this is 0 the registrar has no
    /// observer and a write skips `willSet`/`didSet`: the reader sets the word before its read,
    /// which orders against the write through the entry's lock or its atomics, so either the
    /// read sees the write or the write's later load sees the word.
    @usableFromInline let wasTracked = AtomicWord(0)

    /// How many change streams watch this entry. Only `ChangeSubscriptions` writes it, under its
    /// lock; a write reads it (one relaxed load) to skip ``EntryChangeHook`` while it is zero.
    let streamCount = AtomicWord(0)

    @usableFromInline
    init(key: EntryKey) {
        self.key = key
    }

    /// Whether this is the entry for `key`, compared in place (reading `entry.key` from outside
    /// copies the key).
    @inlinable @inline(__always)
    final func holds(_ key: borrowing EntryKey) -> Bool {
        self.key.matches(key)
    }

    /// A short kind name for ``Application/description``: `State`, `Dependency`, …
    var kindName: String { "Entry" }

    /// The value type's name for ``Application/description``.
    var valueTypeName: String { "" }

    /// How logs name the entry: its key, or where a file state's file is.
    var loggedName: String { key.readable }

    /// The current value, formatted for ``Application/description``.
    var valueDescription: String { "" }

    /// Whether the entry is in the registry but has no value yet, so a read creates it as it
    /// would create a missing entry.
    var awaitsValue: Bool { false }

    /// A view of this entry for the thread `owner` (see ``ThreadViews``): a ``ValueView`` for the
    /// kinds whose value a view keeps a copy of.
    func makeView(owner: UInt) -> EntryView {
        EntryView(entry: self, owner: owner)
    }

    /// The member observers register interest in; it stands for the entry's value.
    @usableFromInline
    final var observedValue: Void { () }

    /// `\.observedValue`, held so reads and writes don't materialise a key path each time.
    @usableFromInline let observedKeyPath: KeyPath<RegistryEntry, Void> & Sendable = \.observedValue

    /// Registers the calling observation-tracking closure, if any, as interested in this entry.
    @inlinable
    final func trackAccess() {
        if wasTracked.loadRelaxed() == 0 {
            wasTracked.storeSequentiallyConsistent(1)
        }
        registrar.access(self, keyPath: observedKeyPath)
    }

    /// Tells observers the value is about to change. Call without holding any lock.
    @usableFromInline
    final func willChange() {
        if wasTracked.loadSequentiallyConsistent() != 0 {
            registrar.willSet(self, keyPath: observedKeyPath)
        }
    }

    /// Tells observers and change streams the value changed. Call without holding any lock.
    @usableFromInline
    final func didChange() {
        if wasTracked.loadSequentiallyConsistent() != 0 {
            registrar.didSet(self, keyPath: observedKeyPath)
        }
        if streamCount.loadRelaxed() != 0 {
            EntryChangeHook.notify(self)
        }
    }

    /// Runs `mutation` (which takes the entry's own lock) between the observer notifications.
    @inlinable @discardableResult
    final func notifyingObservers<Result>(_ mutation: () throws -> Result) rethrows -> Result {
        willChange()
        defer { didChange() }
        return try mutation()
    }
}

/// A registry entry whose value is guarded by the entry's own lock (`StateEntry`,
/// `SyncStateEntry`).
@usableFromInline
class LockedValueEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `lockedValue` is only read or written while `lock` is held.
    @usableFromInline let lock = Lock()
    /// The value, behind a pointer: every access holds ``lock``, so the runtime's exclusivity
    /// checks of a stored `var` would guard nothing.
    @usableFromInline let storage: UnsafeMutablePointer<Value>

    /// The value; touch it only with ``lock`` held.
    @inlinable var lockedValue: Value {
        _read { yield storage.pointee }
        _modify { yield &storage.pointee }
    }

    @usableFromInline
    init(key: EntryKey, value: Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
        super.init(key: key)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }
}

/// Names a registry entry without holding it: its key's hash, to find the probe sequence in
/// the registry's table, and the entry object's identity, to pick it out there. Trivially
/// copyable, so a handle carrying one costs no retain and no key copy.
///
/// An identity is only compared with entries the table holds, which are alive, so a released
/// entry's identity can only match an entry since created at the same address *and* filed
/// under the same hash; callers check its key if that matters.
@usableFromInline
struct EntryReference: Sendable, Equatable {
    @usableFromInline let fastHash: Int
    @usableFromInline let object: ObjectIdentifier

    @inlinable
    init(fastHash: Int, object: ObjectIdentifier) {
        self.fastHash = fastHash
        self.object = object
    }

    init(_ entry: RegistryEntry) {
        self.init(fastHash: entry.key.fastHash, object: ObjectIdentifier(entry))
    }
}
