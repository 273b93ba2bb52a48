/// An optional object reference read on hot paths and replaced rarely: one reference inside a
/// ``LockedBox``.
///
/// A reader takes the lock for as long as it takes to retain the published object, and uses it
/// after releasing the lock; a replacement swaps the reference under the lock and releases the
/// replaced object after it (its `deinit` may run any code). An object a reader still uses stays
/// alive until that reader is done with it.
///
/// Kept by the persisted entries' read memos (`KeptStoredRead`, `KeptFileRead`) and by
/// `DependencyMemo`: each published object is immutable and carries its own validity, so a
/// reader that finds one checks it, and a writer replaces it whole.
final class ReadMostlyReference<Object: AnyObject>: Sendable {
    // (`Sendable` through the box; the objects published here are immutable.)
    /// The published object, as `AnyObject`: a box of a type that doesn't depend on `Object`
    /// is compiled once, so a read from unspecialised generic code (a persisted entry's) doesn't
    /// look up generic metadata at run time (about 500 instructions per read, measured).
    private let published = LockedBox<AnyObject?>(nil)

    init() {}

    /// Runs `body` with the published object, retained while `body` runs, or returns `none`
    /// when nothing is published.
    @inline(__always)
    func withObject<Result>(none: Result, _ body: (Object) -> Result) -> Result {
        guard let object = published.withLock({ $0 }) else { return none }
        return body(unsafeDowncast(object, to: Object.self))
    }

    /// ``withObject(none:_:)`` with the result for no object made by `none` only when needed:
    /// for a `Result` whose copy costs something (a generic value the caller returns when the
    /// object doesn't serve either, say).
    @inline(__always)
    func withObject<Result>(orElse none: () -> Result, _ body: (Object) -> Result) -> Result {
        guard let object = published.withLock({ $0 }) else { return none() }
        // Only `replace(with:)` publishes, and it takes an `Object`.
        return body(unsafeDowncast(object, to: Object.self))
    }

    /// Publishes nothing in place of the current object. (A replacement racing with it may
    /// publish an object right after: callers use this only where every published object
    /// carries its own validity.)
    func clear() {
        replace(with: nil)
    }

    /// Publishes `object` in place of the current one; the replaced one is released after the
    /// lock, once no reader uses it.
    func replace(with object: Object?) {
        let replaced = published.withLock { published in
            let replaced = published
            published = object
            return replaced
        }
        _ = consume replaced
    }
}
