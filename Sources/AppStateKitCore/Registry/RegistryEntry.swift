import Observation

/// What the registry caches: a state, a dependency, a persisted or synchronised state, a secret.
///
/// Each kind is a final class conforming to this protocol, generic over its value; the value
/// type is part of the ``EntryKey``, so the registry hands back the exact class without a dynamic
/// cast. A conforming class is `Sendable` because its fields are: mutable state lives in a
/// locked cell (``LockedCell``, `LockedBox`) or an atomic. Lock order: the registry calls into an
/// entry under its own locks only to read its immutable ``EntryCore``; an entry calls the
/// registry only with no lock of its own held.
///
/// A new kind of entry is one file: its class, its ``core``, and what it says about itself for
/// ``Application/description`` (the requirements below without a default).
@usableFromInline
package protocol RegistryEntry: AnyObject, Sendable {
    /// The key and the observation bookkeeping every entry has.
    var core: EntryCore { get }

    /// A short kind name for ``Application/description``: `State`, `Dependency`, …
    var kindName: String { get }

    /// The value type's name for ``Application/description``.
    var valueTypeName: String { get }

    /// How logs name the entry: its key, or where a file state's file is.
    var loggedName: String { get }

    /// The current value, formatted for ``Application/description``.
    var valueDescription: String { get }

    /// Whether the entry is in the registry but has no value yet, so a read creates it as it
    /// would create a missing entry.
    var awaitsValue: Bool { get }

    /// Whether this is the entry for `key` (a requirement, so a call on `any RegistryEntry`
    /// reaches the conforming class's own copy instead of generic code).
    func holds(_ key: borrowing EntryKey) -> Bool

    /// A view of this entry for the thread `owner` (see ``ThreadViews``): a ``ValueView`` for the
    /// kinds whose value a view keeps a copy of.
    func makeView(owner: UInt) -> EntryView
}

// Always inlined: the callers know the entry's class, and called as generic code these would
// look up its metadata and conformance on every read and write.
extension RegistryEntry {
    @usableFromInline package var loggedName: String { core.key.readable }

    @usableFromInline package var awaitsValue: Bool { false }

    @usableFromInline package func makeView(owner: UInt) -> EntryView {
        EntryView(entry: self, owner: owner)
    }

    /// The entry's key.
    @inlinable @inline(__always)
    package var key: EntryKey { core.key }

    /// Whether this is the entry for `key`, compared in place (reading `entry.key` from outside
    /// copies the key).
    @inlinable @inline(__always)
    package func holds(_ key: borrowing EntryKey) -> Bool {
        core.key.matches(key)
    }

    /// Registers the calling observation-tracking closure, if any, as interested in this entry.
    @inlinable @inline(__always)
    package func trackAccess() {
        core.trackAccess()
    }

    /// Tells observers the value is about to change. Call without holding any lock.
    @inlinable @inline(__always)
    package func willChange() {
        core.willChange()
    }

    /// Tells observers and change streams the value changed. Call without holding any lock.
    @inlinable @inline(__always)
    package func didChange() {
        core.didChange()
        if core.streamCount.loadRelaxed() != 0 {
            EntryChangeHook.notify(self)
        }
    }

    /// Runs `mutation` (which takes the entry's own lock) between the observer notifications.
    @inlinable @inline(__always) @discardableResult
    package func notifyingObservers<Result>(_ mutation: () throws -> Result) rethrows -> Result {
        willChange()
        defer { didChange() }
        return try mutation()
    }
}

/// What every entry has, whatever its kind: its key and its own `Observable` subject, so
/// `withObservationTracking` registers interest in exactly the entries a closure reads.
@usableFromInline
package final class EntryCore: Observable, Sendable {
    @usableFromInline package let key: EntryKey

    /// The entry's own registrar (a registrar matches observers by key path only, so it can't
    /// be shared between subjects).
    @usableFromInline package let registrar = ObservationRegistrar()

    /// 1 once a read of this entry has been reported to the registrar (``trackAccess()``), else
    /// 0; never cleared, since the registrar doesn't say when its observers go.
    ///
    /// Observation registers an observer only for entries its tracked closure read, and every
    /// read reports itself before it reads the value. So while this is 0 the registrar has no
    /// observer and a write skips `willSet`/`didSet`: the reader sets the word before its read,
    /// which orders against the write through the entry's lock or its atomics, so either the
    /// read sees the write or the write's later load sees the word.
    @usableFromInline package let wasTracked = AtomicWord(0)

    /// How many change streams watch this entry. Only `ChangeSubscriptions` writes it, under its
    /// lock; a write reads it (one relaxed load) to skip ``EntryChangeHook`` while it is zero.
    @usableFromInline package let streamCount = AtomicWord(0)

    @usableFromInline
    package init(key: EntryKey) {
        self.key = key
    }

    /// The member observers register interest in; it stands for the entry's value.
    @usableFromInline
    package var observedValue: Void { () }

    /// `\.observedValue`, held so reads and writes don't materialise a key path each time.
    @usableFromInline package let observedKeyPath: KeyPath<EntryCore, Void> & Sendable = \.observedValue

    @inlinable
    package func trackAccess() {
        if wasTracked.loadRelaxed() == 0 {
            wasTracked.storeSequentiallyConsistent(1)
        }
        registrar.access(self, keyPath: observedKeyPath)
    }

    @usableFromInline
    package func willChange() {
        if wasTracked.loadSequentiallyConsistent() != 0 {
            registrar.willSet(self, keyPath: observedKeyPath)
        }
    }

    @usableFromInline
    package func didChange() {
        if wasTracked.loadSequentiallyConsistent() != 0 {
            registrar.didSet(self, keyPath: observedKeyPath)
        }
    }
}

/// A value guarded by its own lock: what a ``StateEntry`` or a `SyncStateEntry` keeps.
///
/// The value sits behind a pointer: every access holds ``lock``, so the runtime's exclusivity
/// checks of a stored `var` would guard nothing.
@usableFromInline
package final class LockedCell<Value>: @unchecked Sendable {
    // Safe: the pointee is only read or written while `lock` is held; the pointer is allocated
    // once and freed in `deinit`.
    @usableFromInline package let lock = Lock(order: .entryValue)
    @usableFromInline package let storage: UnsafeMutablePointer<Value>

    @usableFromInline
    package init(_ value: Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// The value; touch it only with ``lock`` held.
    @inlinable package var value: Value {
        _read { yield storage.pointee }
        _modify { yield &storage.pointee }
    }
}

/// An entry whose value lives in a ``LockedCell`` (`StateEntry`, `SyncStateEntry`).
@usableFromInline
package protocol LockedValueEntry: RegistryEntry {
    associatedtype Value: Sendable
    var cell: LockedCell<Value> { get }
}

extension LockedValueEntry {
    /// The cell's lock.
    @inlinable @inline(__always) package var lock: Lock { cell.lock }

    /// The value; touch it only with ``lock`` held.
    @inlinable @inline(__always) package var lockedValue: Value {
        _read { yield cell.value }
        _modify { yield &cell.value }
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
package struct EntryReference: Sendable, Equatable {
    @usableFromInline package let fastHash: Int
    @usableFromInline package let object: ObjectIdentifier

    @inlinable
    package init(fastHash: Int, object: ObjectIdentifier) {
        self.fastHash = fastHash
        self.object = object
    }

    init(_ entry: any RegistryEntry) {
        self.init(fastHash: entry.key.fastHash, object: ObjectIdentifier(entry))
    }
}
