import Synchronization

/// A reference published for lock-free reading, whose published objects are never freed.
///
/// Policy: every object ever published stays retained for the rest of the process. A reader
/// loads the current object with one acquiring load and uses it without retaining it, so
/// nothing may free an object a reader might still hold; publishing a new object hands the
/// previous one's retain back to the publisher, who must keep it (``Application/shared`` keeps
/// a list). ``publishIfAbsent(_:in:)`` and ``replace(with:in:)`` must be serialised by the
/// caller; reads need no lock.
///
/// The word (the published object's address, retained; 0 before the first publication) is an
/// `Atomic<UInt>` its owner stores in a `static let` and passes to these functions.
@usableFromInline
enum PublishedReference<Object: AnyObject> {
    /// The published word: the published object's address, or 0 before the first publication.
    /// Acquiring, so the object's initialisation, published by a releasing store, is visible.
    @inlinable @inline(__always)
    static func word(in bits: borrowing Atomic<UInt>) -> UInt {
        bits.load(ordering: .acquiring)
    }

    /// Runs `body` with the object a nonzero ``word(in:)`` names, without retaining it. (`body`
    /// throws so that an inlined caller's closure keeps no retain of the object.)
    @inlinable @inline(__always)
    static func withObject<Result>(at word: UInt, _ body: (Object) throws -> Result) rethrows -> Result {
        // Safe: published objects are never released (see the type's policy).
        try Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: word)!)._withUnsafeGuaranteedRef(body)
    }

    /// Publishes `object` unless an object is published already; returns the published one.
    @usableFromInline
    static func publishIfAbsent(_ object: Object, in bits: borrowing Atomic<UInt>) -> Object {
        let current = word(in: bits)
        if current != 0 { return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue() }
        bits.store(UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()), ordering: .releasing)
        return object
    }

    /// Publishes `object` and returns the previously published one, whose retain passes to the
    /// caller: keep it for the rest of the process, since readers may still use it.
    @usableFromInline
    static func replace(with object: Object, in bits: borrowing Atomic<UInt>) -> Object? {
        let retained = UInt(bitPattern: Unmanaged.passRetained(object).toOpaque())
        let old = bits.exchange(retained, ordering: .acquiringAndReleasing)
        guard old != 0 else { return nil }
        return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
    }
}
