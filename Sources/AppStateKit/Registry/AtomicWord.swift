import Synchronization

/// A heap-allocated atomic word, owned by the class that stores it.
///
/// Classes on the inlinable access path hold atomics through this pointer wrapper rather than
/// as `Atomic` stored properties: with Swift 6.3.1, a client module that inlines from a class
/// whose deinit destroys a stored `Atomic` crashes the compiler ("Found ownership error").
/// The owner calls ``destroy()`` from its `deinit`. Orderings are fixed per method because
/// `Atomic` requires them to be compile-time constants.
@usableFromInline
struct AtomicWord: @unchecked Sendable {
    // Safe: the pointee is only accessed through atomic operations.
    @usableFromInline let pointer: UnsafeMutablePointer<Atomic<UInt64>>

    @usableFromInline
    init(_ initial: UInt64) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: Atomic(initial))
    }

    /// Loads with acquire ordering: writes published before a releasing store are visible.
    @inlinable
    func loadAcquiring() -> UInt64 {
        pointer.pointee.load(ordering: .acquiring)
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

    @usableFromInline
    func destroy() {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// Adds one with release ordering, publishing the writes made before it.
    @usableFromInline
    func incrementReleasing() {
        pointer.pointee.add(1, ordering: .releasing)
    }
}
