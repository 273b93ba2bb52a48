import Synchronization

/// A heap-allocated atomic word, owned by exactly one stored property.
///
/// Classes on the inlinable access path hold atomics through this pointer wrapper rather than
/// as `Atomic` stored properties: with Swift 6.3.1, a client module that inlines from a class
/// whose deinit destroys a stored `Atomic` crashes the compiler ("Found ownership error").
///
/// The word is non-copyable, so it has one owner and is freed exactly once, when that owner
/// goes away (its `deinit`). Code that must read a word owned elsewhere takes a ``View``,
/// which is valid only while the owner is alive; whoever keeps a view also keeps the owner.
/// Orderings are fixed per method because `Atomic` requires them to be compile-time constants.
@usableFromInline
struct AtomicWord: ~Copyable, @unchecked Sendable {
    // Safe: the pointee is only accessed through atomic operations, and freed once, by deinit.
    @usableFromInline let pointer: UnsafeMutablePointer<Atomic<UInt64>>

    @usableFromInline
    init(_ initial: UInt64) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: Atomic(initial))
    }

    @usableFromInline
    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// Loads with acquire ordering: writes published before a releasing store are visible.
    @inlinable
    func loadAcquiring() -> UInt64 {
        pointer.pointee.load(ordering: .acquiring)
    }

    /// Loads with no ordering guarantee beyond atomicity.
    @inlinable
    func loadRelaxed() -> UInt64 {
        view.loadRelaxed()
    }

    /// Stores with no ordering guarantee beyond atomicity.
    @inlinable
    func storeRelaxed(_ value: UInt64) {
        view.storeRelaxed(value)
    }

    /// Loads as part of the single total order of sequentially consistent operations.
    @inlinable
    func loadSequentiallyConsistent() -> UInt64 {
        pointer.pointee.load(ordering: .sequentiallyConsistent)
    }

    /// Stores as part of the single total order of sequentially consistent operations.
    @usableFromInline
    func storeSequentiallyConsistent(_ value: UInt64) {
        pointer.pointee.store(value, ordering: .sequentiallyConsistent)
    }

    /// Adds one with release ordering, publishing the writes made before it.
    @usableFromInline
    func incrementReleasing() {
        pointer.pointee.add(1, ordering: .releasing)
    }

    /// A read-only view of this word for another object, valid while this word's owner lives.
    @inlinable
    var view: View { View(pointer: pointer) }

    /// A copyable, unowned view of an ``AtomicWord``: it neither keeps the word alive nor frees
    /// it. Hold it only next to a strong reference to the word's owner.
    @usableFromInline
    struct View: @unchecked Sendable {
        // Safe: the pointee is only accessed atomically; the holder keeps the owner alive.
        @usableFromInline let pointer: UnsafeMutablePointer<Atomic<UInt64>>

        @usableFromInline
        init(pointer: UnsafeMutablePointer<Atomic<UInt64>>) {
            self.pointer = pointer
        }

        /// Loads with no ordering guarantee beyond atomicity.
        @inlinable
        func loadRelaxed() -> UInt64 {
            pointer.pointee.load(ordering: .relaxed)
        }

        /// Stores with no ordering guarantee beyond atomicity.
        @inlinable
        func storeRelaxed(_ value: UInt64) {
            pointer.pointee.store(value, ordering: .relaxed)
        }

        /// Adds one with release ordering, publishing the writes made before it.
        func incrementReleasing() {
            pointer.pointee.add(1, ordering: .releasing)
        }
    }
}
