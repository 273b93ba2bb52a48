import Synchronization

/// An optional object reference read on hot paths without a lock and replaced rarely.
///
/// A reader announces itself in a counter, loads the published object, uses it without
/// retaining it and leaves; that is two atomic additions and a load, where a mutex would cost
/// two calls. A replacement (serialised by a lock of its own) publishes the new object and
/// keeps the replaced one until no reader can still be using it: it is released by the first
/// replacement — this one or a later one — that finds no reader in flight, or with the
/// reference itself. (The counter and the published word are accessed sequentially
/// consistently: a replacement that sees no reader knows every later reader loads the new
/// object.) Released objects are released after the lock, as their `deinit` may run any code.
///
/// A reader's `body` must be short and must not replace the same reference (it would see
/// itself in flight and keep the replaced object until the next replacement — harmless, but
/// pointless).
final class ReadMostlyReference<Object: AnyObject>: @unchecked Sendable {
    // Safe: `word` and `readers` are atomic; `retired` is only touched with `replacing` held.
    /// The published object's address, retained; 0 for none.
    private let word = Atomic<UInt>(0)
    /// Readers currently between their announcement and their exit.
    private let readers = Atomic<Int>(0)
    /// Serialises replacements.
    private let replacing = Lock()
    /// Replaced objects a reader may still be using, each retained. (Raw addresses: an array
    /// of a type that doesn't depend on `Object` is compiled once, so a replacement from
    /// unspecialised generic code doesn't pay for generic array operations.)
    private var retired: [UnsafeMutableRawPointer] = []

    init() {}

    deinit {
        // No reader can run any more: whatever is published or retired is released.
        let bits = word.load(ordering: .sequentiallyConsistent)
        if bits != 0 { Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        for object in retired { Unmanaged<Object>.fromOpaque(object).release() }
    }

    /// Runs `body` with the published object, without taking a lock or retaining it (the
    /// object stays alive while `body` runs); `none` when nothing is published.
    @inline(__always)
    func withObject<Result>(none: Result, _ body: (Object) -> Result) -> Result {
        readers.add(1, ordering: .sequentiallyConsistent)
        defer { readers.subtract(1, ordering: .sequentiallyConsistent) }
        let bits = word.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return none }
        return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef(body)
    }

    /// ``withObject(none:_:)`` with the result for no object made by `none` only when needed:
    /// for a `Result` whose copy costs something (a generic value the caller returns when the
    /// object doesn't serve either, say).
    @inline(__always)
    func withObject<Result>(orElse none: () -> Result, _ body: (Object) -> Result) -> Result {
        readers.add(1, ordering: .sequentiallyConsistent)
        defer { readers.subtract(1, ordering: .sequentiallyConsistent) }
        let bits = word.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return none() }
        return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef(body)
    }

    /// Publishes nothing in place of the current object; costs one load when nothing is
    /// published. (A replacement racing with it may publish an object right after: callers use
    /// this only where every published object carries its own validity.)
    func clear() {
        guard word.load(ordering: .sequentiallyConsistent) != 0 else { return }
        replace(with: nil)
    }

    /// Publishes `object` in place of the current one.
    func replace(with object: Object?) {
        var bits: UInt = 0
        if let object { bits = UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()) }
        let released: [UnsafeMutableRawPointer] = replacing.withLock {
            let old = word.exchange(bits, ordering: .sequentiallyConsistent)
            if old != 0 { retired.append(UnsafeMutableRawPointer(bitPattern: old)!) }
            // Every reader that starts from here on loads the new object.
            guard readers.load(ordering: .sequentiallyConsistent) == 0 else { return [] }
            defer { retired.removeAll() }
            return retired
        }
        for object in released { Unmanaged<Object>.fromOpaque(object).release() }
    }
}
