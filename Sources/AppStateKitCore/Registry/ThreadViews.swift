#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

// Exists for one number (issue 44): two threads reading the same entry take at most 0.7× one
// thread's time per read, because a read that hits here writes nothing another thread touches.

/// A thread's own handle on a registry entry: what a State handle holds and what a lookup finds
/// in the calling thread's ``ThreadViews``. Retaining it writes memory only its thread uses; the
/// entry's own count (written by every thread that copies a reference to it) is left alone.
///
/// Holds its entry strongly, so a handle keeps a removed entry alive, detached, as before.
@usableFromInline
package class EntryView: @unchecked Sendable {
    // Safe: both properties are immutable; subclasses' caches are touched by `owner` only.
    @usableFromInline package let entry: any RegistryEntry
    /// The entry's core, held directly so a read checks the key and reports its access without
    /// a call through the entry's protocol.
    @usableFromInline package let core: EntryCore
    /// The thread whose ``ThreadViews`` made the view (`pthread_self`).
    @usableFromInline package let owner: UInt
    /// Never read: it keeps the next allocation (another thread's view, say) off the cache line
    /// of this view's reference count, which a State handle's retain writes on every read.
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    @usableFromInline
    package init(entry: any RegistryEntry, owner: UInt) {
        self.entry = entry
        self.core = entry.core
        self.owner = owner
    }
}

/// A view that also keeps a copy of its entry's value and the entry's version it was read at
/// (a State's or a dependency's): while the version is unchanged, the owner reads the copy
/// instead of taking the entry's lock.
@usableFromInline
package final class ValueView<Value>: EntryView, @unchecked Sendable {
    // Safe: `cache` is read and written only by the thread `owner` names (checked in debug builds).
    @usableFromInline package let cache: UnsafeMutablePointer<(version: UInt64, value: Value?)>
    /// The entry's version word (valid while the view holds the entry), so a read checks its
    /// copy without touching the entry object.
    @usableFromInline package let version: AtomicWord.View

    /// No entry version is `UInt64.max`, so a new view's first read fills it.
    @usableFromInline
    package init(entry: any RegistryEntry, owner: UInt, version: AtomicWord.View) {
        cache = .allocate(capacity: 1)
        cache.initialize(to: (UInt64.max, nil))
        self.version = version
        super.init(entry: entry, owner: owner)
    }

    /// The copy, if this thread owns the view and the entry's version is the copy's.
    @inlinable @inline(__always)
    package var current: Value? {
        guard owner == ThreadID.current.rawValue else { return nil }
        return cached(at: version.loadAcquiring())
    }

    deinit {
        cache.deinitialize(count: 1)
        cache.deallocate()
    }

    /// The copy, if it was read at `version`; call on the owning thread only.
    @inlinable @inline(__always)
    package func cached(at version: UInt64) -> Value? {
        #if DEBUG
        checkOwner()
        #endif
        return cache.pointee.version == version ? cache.pointee.value : nil
    }

    /// Keeps `value`, read at `version` under the entry's lock; call on the owning thread only.
    @usableFromInline
    package func keep(_ value: Value?, at version: UInt64) {
        #if DEBUG
        checkOwner()
        #endif
        cache.pointee = (version, value)
    }

    #if DEBUG
    /// Stops unless the calling thread owns the view: only its owner touches the copy.
    @usableFromInline
    package func checkOwner() {
        precondition(owner == ThreadID.current.rawValue, "AppStateKit: internal error: a thread used another thread's view of \(entry.key.readable)")
    }
    #endif
}

/// The calling thread's views of the entries it looked up, 256 slots indexed by the key's
/// ``EntryKey/fastHash``. A slot is used only while its registry's ``Registry/stamp`` (moved by
/// every removal) is what it was before the lookup that filled it, so a hit is the entry the
/// registry holds for the key. Nothing here is shared: one object per thread, reached through
/// a pthread key and released when the thread exits.
///
/// What stays pinned: a slot keeps its view, and so its entry, until the slot is reused, its
/// registry is released or removes the entry on this thread, or the thread exits.
@usableFromInline
package final class ThreadViews {
    @usableFromInline
    package struct Slot {
        /// The registry's ``Registry/identity``; 0 (no registry's) for an empty slot.
        @usableFromInline package var registry: UInt64 = 0
        /// The registry's stamp read before the lookup that filled the slot.
        @usableFromInline package var stamp: UInt64 = 0
        /// The view, retained by the slot (unmanaged, so reading it is no retain).
        @usableFromInline package var view: Unmanaged<EntryView>?
    }

    @usableFromInline package static let slotMask = 255
    // Touched only by the thread that owns this object.
    @usableFromInline package let slots: UnsafeMutablePointer<Slot>
    @usableFromInline package let owner: UInt
    /// What a layer above binds to this thread while it evaluates something synchronously
    /// (the dependency layer's key capture, see `KeyCapture`): such an evaluation runs on this
    /// thread from start to end. Touched only by the owning thread.
    var evaluationContext: AnyObject?

    private init() {
        slots = .allocate(capacity: Self.slotMask + 1)
        slots.initialize(repeating: Slot(), count: Self.slotMask + 1)
        owner = ThreadID.current.rawValue
    }

    deinit {
        for index in 0...Self.slotMask {
            slots[index].view?.release()
        }
        slots.deinitialize(count: Self.slotMask + 1)
        slots.deallocate()
    }

    /// The key under which each thread keeps its ``ThreadViews``; the destructor releases it.
    @usableFromInline package static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { views in
            #if canImport(Darwin)
            Unmanaged<ThreadViews>.fromOpaque(views).release()
            #else
            if let views { Unmanaged<ThreadViews>.fromOpaque(views).release() }
            #endif
        }
        precondition(result == 0, "AppStateKit: pthread_key_create failed with \(result)")
        return key
    }()

    /// Runs `body` with the calling thread's views. The thread's key keeps them alive until the
    /// thread exits, and only this thread could end that, so they are used without a retain.
    @inlinable @inline(__always)
    package static func withCurrent<Result>(_ body: (ThreadViews) -> Result) -> Result {
        guard let raw = pthread_getspecific(key) else { return body(makeCurrent()) }
        return Unmanaged<ThreadViews>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    @usableFromInline
    package static func makeCurrent() -> ThreadViews {
        let views = ThreadViews()
        let result = pthread_setspecific(key, Unmanaged.passRetained(views).toOpaque())
        precondition(result == 0, "AppStateKit: pthread_setspecific failed with \(result)")
        return views
    }

    /// Runs `body` with the view of `registry`'s entry for `key`, if this thread looked it up
    /// since the registry's last removal; `nil` if it didn't. The slot keeps the view alive, so
    /// it is used without a retain: `body` must not look entries up (which may reuse the slot).
    @inlinable @inline(__always)
    package func withView<Result>(in registry: Registry, for key: borrowing EntryKey, _ body: (EntryView) -> Result?) -> Result? {
        let slot = slots + (key.fastHash & Self.slotMask)
        guard slot.pointee.registry == registry.identity,
              slot.pointee.stamp == registry.stamp.load(ordering: .acquiring),
              let view = slot.pointee.view
        else { return nil }
        return view._withUnsafeGuaranteedRef { view in
            guard view.core.key.matches(key) else { return nil }
            #if DEBUG
            registry.checkView(view, for: key)
            #endif
            return body(view)
        }
    }

    /// Files the view of `entry`, found in `registry` after its stamp read `stamp`: the slot's
    /// view if it is of the same entry, else a new one (the slot's old view is released after
    /// the slot is written, so a `deinit` it runs may look entries up again).
    func keep(_ entry: any RegistryEntry, of registry: Registry, stamp: UInt64) -> EntryView {
        let slot = slots + (entry.key.fastHash & Self.slotMask)
        if let view = slot.pointee.view?.takeUnretainedValue(), view.entry === entry {
            slot.pointee.registry = registry.identity
            slot.pointee.stamp = stamp
            return view
        }
        let view = entry.makeView(owner: owner)
        let old = slot.pointee.view
        slot.pointee = Slot(registry: registry.identity, stamp: stamp, view: Unmanaged.passRetained(view))
        old?.release()
        return view
    }

    /// Empties the slots whose view is of `entry` (it was removed) or, with `entry` nil, of the
    /// registry `identity` (it is being released). The views go after the slots are written.
    static func forget(registry identity: UInt64, entry: (any RegistryEntry)? = nil) {
        guard let raw = pthread_getspecific(key) else { return }
        let views = Unmanaged<ThreadViews>.fromOpaque(raw).takeUnretainedValue()
        var released: [Unmanaged<EntryView>] = []
        let range = entry.map { [$0.key.fastHash & slotMask] } ?? Array(0...slotMask)
        for index in range where views.slots[index].registry == identity {
            guard let view = views.slots[index].view, entry == nil || view.takeUnretainedValue().entry === entry else { continue }
            released.append(view)
            views.slots[index] = Slot()
        }
        for view in released { view.release() }
    }
}
