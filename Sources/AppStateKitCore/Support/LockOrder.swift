#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a ``Lock`` stands in the order AppStateKit takes its locks in, checked in debug builds.
///
/// A thread holding a lock of some rank may take locks of that rank or a higher one, never a
/// lower one: two threads taking the same two locks in opposite orders can each wait for the
/// other forever, and the check stops the first thread that takes them the wrong way round,
/// naming both, instead of waiting for the interleaving that hangs. The order, lowest first:
///
/// 1. ``entryValue``: an entry's own value lock. A State's in-place mutation holds it while the
///    caller's code runs, and that code may read other entries (same rank) or create entries
///    (the registry's locks, higher).
/// 2. ``registry``: the registry's creation bookkeeping.
/// 3. ``registryTable``: the registry's table of entries, taken inside ``registry`` or alone.
///
/// So nothing may touch an entry's value while holding the registry's locks. Locks of rank 0
/// (``unordered``, every other lock) are not tracked.
@usableFromInline
package struct LockOrder: Sendable, Equatable {
    @usableFromInline package let rank: UInt64

    @usableFromInline
    package init(rank: UInt64) {
        self.rank = rank
    }

    /// Not tracked.
    @usableFromInline package static let unordered = LockOrder(rank: 0)
    /// An entry's own value lock (`LockedCell`).
    @usableFromInline package static let entryValue = LockOrder(rank: 1)
    /// `Registry`'s lock around creations and removals.
    @usableFromInline package static let registry = LockOrder(rank: 2)
    /// `Registry.table`'s lock.
    @usableFromInline package static let registryTable = LockOrder(rank: 3)

    static let names: [UInt64: String] = [1: "an entry's value lock", 2: "the registry's lock", 3: "the registry's table lock"]

    /// How many locks of each rank the calling thread holds, 16 bits per rank, kept in the
    /// thread's slot of ``heldKey`` as the pointer's bits (no allocation, nothing to free).
    static let heldKey: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "AppStateKit: pthread_key_create failed with \(result)")
        return key
    }()

    static var held: UInt64 {
        get { UInt64(UInt(bitPattern: pthread_getspecific(heldKey))) }
        set {
            let result = pthread_setspecific(heldKey, UnsafeRawPointer(bitPattern: UInt(newValue)))
            precondition(result == 0, "AppStateKit: pthread_setspecific failed with \(result)")
        }
    }

    static func shift(_ rank: UInt64) -> UInt64 { (rank - 1) * 16 }

    /// Before the calling thread waits for a lock of this rank: stops if it holds a lock of a
    /// higher rank.
    @usableFromInline
    package func willWait() {
        let held = LockOrder.held
        for higher in (rank + 1)..<4 where (held >> LockOrder.shift(higher)) & 0xFFFF != 0 {
            preconditionFailure("AppStateKit: internal error: lock order violated: taking \(LockOrder.names[rank]!) while holding \(LockOrder.names[higher]!)")
        }
    }

    /// The calling thread took a lock of this rank.
    @usableFromInline
    package func taken() {
        LockOrder.held += 1 << LockOrder.shift(rank)
    }

    /// The calling thread released a lock of this rank.
    @usableFromInline
    package func released() {
        precondition((LockOrder.held >> LockOrder.shift(rank)) & 0xFFFF != 0, "AppStateKit: internal error: released \(LockOrder.names[rank]!) the thread did not hold")
        LockOrder.held -= 1 << LockOrder.shift(rank)
    }
}
