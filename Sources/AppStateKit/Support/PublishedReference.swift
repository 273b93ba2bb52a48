import Synchronization

/// A reference published for lock-free reading, whose published objects are never freed.
///
/// Policy: every object ever published stays retained for the rest of the process. A reader
/// loads the current object with one acquiring load and uses it without retaining it, so
/// nothing may free an object a reader might still hold; publishing a new object hands the
/// previous one's retain back to the publisher, who must keep it (``Application/shared`` keeps
/// a list). Suits objects replaced rarely and read constantly, such as the shared application.
///
/// ``publishIfAbsent(_:in:)`` and ``replace(with:in:)`` must be serialised by the caller (one
/// lock); reads need no lock.
///
/// The word itself (the published object's address, retained; 0 before the first publication)
/// is an `Atomic<UInt>` its owner stores in a `static let` and passes to these functions. A hot
/// read loads it with ``word(in:)`` and uses the object with ``withObject(at:_:)``, checking for
/// 0 itself (`SharedApplication.withShared` says why it is split so).
@usableFromInline
enum PublishedReference<Object: AnyObject> {
    /// The published word: the published object's address, or 0 before the first publication.
    /// Acquiring, so the object's initialisation, published by a releasing store, is visible.
    @inlinable @inline(__always)
    static func word(in bits: borrowing Atomic<UInt>) -> UInt {
        bits.load(ordering: .acquiring)
    }

    /// Runs `body` with the object a nonzero ``word(in:)`` names, without retaining it.
    ///
    /// `body` is `throws` although no caller throws: inlined, a caller's non-throwing closure is
    /// then called through a conversion, and the client module keeps no retain of the object
    /// (measured: see `SharedApplication.withShared`).
    @inlinable @inline(__always)
    static func withObject<Result>(at word: UInt, _ body: (Object) throws -> Result) rethrows -> Result {
        // Safe: published objects are never released (see the type's policy).
        try Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: word)!)._withUnsafeGuaranteedRef(body)
    }

    /// The published object, or `nil` before the first publication.
    @inlinable
    static func published(in bits: borrowing Atomic<UInt>) -> Object? {
        let bits = word(in: bits)
        guard bits != 0 else { return nil }
        return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// Publishes `object` unless an object is published already; returns the published one.
    /// Callers serialise this with ``replace(with:in:)``.
    @usableFromInline
    static func publishIfAbsent(_ object: Object, in bits: borrowing Atomic<UInt>) -> Object {
        if let current = published(in: bits) { return current }
        bits.store(UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()), ordering: .releasing)
        return object
    }

    /// Publishes `object` and returns the previously published one, whose retain passes to the
    /// caller: keep it for the rest of the process, since readers may still use it.
    /// Callers serialise this with ``publishIfAbsent(_:in:)``.
    @usableFromInline
    static func replace(with object: Object, in bits: borrowing Atomic<UInt>) -> Object? {
        let retained = UInt(bitPattern: Unmanaged.passRetained(object).toOpaque())
        let old = bits.exchange(retained, ordering: .acquiringAndReleasing)
        guard old != 0 else { return nil }
        return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
    }
}
