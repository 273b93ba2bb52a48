import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An optional object reference read on hot paths without a lock and replaced rarely.
///
/// A reader announces itself in one of two counters (the one the current epoch's parity names),
/// loads the published object, uses it without retaining it and leaves; that is a few atomic
/// operations where a mutex would cost two calls. Each parity's counter is split into
/// ``ReaderCounters/stripeCount`` stripes on separate cache lines, one per reading thread in turn,
/// so readers on different processors don't write the same line: reads scale with threads
/// instead of bouncing one counter between processors. A replacement (serialised by a lock of its
/// own) publishes the new object, then waits out a *grace period*: it advances the epoch, so
/// readers that start from then on announce themselves in the other counter, and waits for the
/// counter of the readers before to drain. A reader's visit is a few loads, so the wait is
/// short, and the replaced object is released right after it. Every object is released within a
/// bounded time: memory doesn't grow with the number of replacements, however busy the readers.
///
/// When a wait does not end soon (a reader was preempted, or `body` replaced the same
/// reference), the replaced object is kept and released by a later replacement whose two grace
/// periods, one per counter, both ended (or with the reference itself). Released objects are
/// released after the lock, as their `deinit` may run any code.
///
/// A reader's `body` must be short and should not replace the same reference (the replacement
/// would wait for its own reader to leave, give up, and keep the object until a later one).
///
/// Kept because a number needs it: with one reference in a `LockedBox` instead (a lock and a
/// retain per read), a FileState read measured 3.01× a State read (minimums of one benchmark
/// run, section 6b), over the 3× bar, against 1.74× with this.
final class ReadMostlyReference<Object: AnyObject>: @unchecked Sendable {
    // Safe: `word`, `epoch` and the counters are atomic; `retired` and `isSettled` are only
    // touched with `replacing` held.
    /// The published object's address, retained; 0 for none.
    private let word = Atomic<UInt>(0)
    /// Advanced by every grace period; its parity names the counter new readers use.
    private let epoch = Atomic<UInt>(0)
    /// Readers in flight, by the parity of the epoch they announced themselves in.
    private let readers = ReaderCounters()
    /// Serialises replacements.
    private let replacing = Lock()
    /// Replaced objects a reader may still be using, each retained. (Raw addresses: an array
    /// of a type that doesn't depend on `Object` is compiled once, so a replacement from
    /// unspecialised generic code doesn't pay for generic array operations.)
    private var retired: [UnsafeMutableRawPointer] = []
    /// Whether every grace period so far ended, so that only readers of the current epoch can
    /// still be using a replaced object.
    private var isSettled = true

    /// How many times a grace period checks its counter (spinning, then yielding the processor)
    /// before it gives up and keeps the replaced object for later.
    private let patience: Int

    /// A reference publishing nothing yet; `patience` is how many checks a grace period makes
    /// before it gives up (tests pass `.max` to wait for as long as a reader takes).
    init(patience: Int = 2_000) {
        self.patience = patience
    }

    /// The current epoch, for tests that need to know a grace period has begun.
    var epochForTesting: UInt { epoch.load(ordering: .sequentiallyConsistent) }

    deinit {
        // No reader can run any more: whatever is published or retired is released.
        let bits = word.load(ordering: .sequentiallyConsistent)
        if bits != 0 { Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        for object in retired { Unmanaged<Object>.fromOpaque(object).release() }
    }

    /// Announces a reader in the current epoch's counter; returns that epoch's parity.
    ///
    /// The epoch is read again after the announcement: a reader whose epoch moved on meanwhile
    /// announces itself again, so a grace period that waited for the old counter covers every
    /// reader that could have loaded the object it replaced.
    /// The counter it announced itself in is the calling thread's stripe of that parity; the
    /// reader leaves from the same one.
    @inline(__always)
    private func enter() -> UnsafeMutablePointer<Atomic<Int>> {
        let stripe = ReaderCounters.callingThreadStripe()
        while true {
            let current = epoch.load(ordering: .sequentiallyConsistent)
            let counter = readers.counter(parity: current & 1, stripe: stripe)
            counter.pointee.add(1, ordering: .sequentiallyConsistent)
            if epoch.load(ordering: .sequentiallyConsistent) == current { return counter }
            leave(counter)
        }
    }

    @inline(__always)
    private func leave(_ counter: UnsafeMutablePointer<Atomic<Int>>) {
        let before = counter.pointee.subtract(1, ordering: .sequentiallyConsistent).oldValue
        assert(before > 0, "AppStateKit: ReadMostlyReference reader count went below zero")
    }

    /// Runs `body` with the published object, without taking a lock or retaining it (the
    /// object stays alive while `body` runs); `none` when nothing is published.
    @inline(__always)
    func withObject<Result>(none: Result, _ body: (Object) -> Result) -> Result {
        withObject(orElse: { none }, body)
    }

    /// ``withObject(none:_:)`` with the result for no object made by `none` only when needed:
    /// for a `Result` whose copy costs something (a generic value the caller returns when the
    /// object doesn't serve either, say).
    @inline(__always)
    func withObject<Result>(orElse none: () -> Result, _ body: (Object) -> Result) -> Result {
        let counter = enter()
        defer { leave(counter) }
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

    /// Publishes `object` in place of the current one, and releases the replaced one once no
    /// reader can be using it.
    func replace(with object: Object?) {
        var bits: UInt = 0
        if let object { bits = UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()) }
        let released: [UnsafeMutableRawPointer] = replacing.withLock {
            let old = word.exchange(bits, ordering: .sequentiallyConsistent)
            if old != 0 { retired.append(UnsafeMutableRawPointer(bitPattern: old)!) }
            guard !retired.isEmpty else { return [] }
            // Every reader that starts from here on loads the new object. One grace period
            // covers the readers that could hold what was just replaced when every earlier one
            // ended; otherwise a second one covers the other counter's readers too.
            guard waitForEarlierReaders(), isSettled || waitForEarlierReaders() else {
                isSettled = false
                return []
            }
            isSettled = true
            defer { retired.removeAll() }
            return retired
        }
        for object in released { Unmanaged<Object>.fromOpaque(object).release() }
    }

    /// One grace period: advances the epoch, then waits until every reader that announced
    /// itself before has left. Returns `false` when that takes too long (see ``patience``).
    private func waitForEarlierReaders() -> Bool {
        let before = epoch.add(1, ordering: .sequentiallyConsistent).oldValue
        var attempt = 0
        while attempt < patience {
            // No stripe goes below zero (a reader leaves the stripe it entered), so a zero sum
            // means every stripe read zero after the epoch advanced.
            if readers.sum(parity: before & 1) == 0 { return true }
            if attempt >= 64 { sched_yield() }
            attempt += 1
        }
        return false
    }
}

/// The reader counters of one ``ReadMostlyReference``: for each epoch parity, one counter per
/// stripe, each stripe on its own cache line. A thread always uses the same stripe, so readers on
/// different threads write different lines; a grace period sums a parity's stripes.
private final class ReaderCounters: @unchecked Sendable {
    // Safe: the counters are only accessed atomically, and freed once, by deinit.
    /// Stripes per parity, a power of two.
    static let stripeCount = 8
    /// Counters from one stripe to the next: a 64-byte cache line of them, of which the first
    /// two are the even and the odd parity's.
    private static let stride = 64 / MemoryLayout<Atomic<Int>>.stride

    private let counters: UnsafeMutablePointer<Atomic<Int>>

    init() {
        let count = Self.stripeCount * Self.stride
        counters = UnsafeMutableRawPointer
            .allocate(byteCount: count * MemoryLayout<Atomic<Int>>.stride, alignment: 64)
            .bindMemory(to: Atomic<Int>.self, capacity: count)
        for index in 0..<count { (counters + index).initialize(to: Atomic(0)) }
    }

    deinit {
        counters.deinitialize(count: Self.stripeCount * Self.stride)
        UnsafeMutableRawPointer(counters).deallocate()
    }

    /// The calling thread's stripe. Threads take stripes in turn, the first time they read any
    /// reference, so the first ``stripeCount`` threads of a process (a server's event loops and
    /// task executors, which live as long as it does) never share one.
    @inline(__always)
    static func callingThreadStripe() -> Int {
        // The stripe is kept as the key's value plus one, so that nil means none yet.
        if let stored = pthread_getspecific(stripeKey) { return Int(bitPattern: stored) &- 1 }
        let stripe = nextStripe.wrappingAdd(1, ordering: .relaxed).oldValue & (stripeCount - 1)
        pthread_setspecific(stripeKey, UnsafeRawPointer(bitPattern: stripe + 1))
        return stripe
    }

    /// Each thread's stripe, as a plain integer.
    private static let stripeKey = ThreadLocalKey.plainValues()

    /// The stripe the next thread takes (modulo ``stripeCount``).
    private static let nextStripe = Atomic<Int>(0)

    /// The counter of `parity` (0 or 1) in `stripe`.
    @inline(__always)
    func counter(parity: UInt, stripe: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        assert(parity < 2 && stripe >= 0 && stripe < Self.stripeCount, "AppStateKit: reader counter \(parity)/\(stripe) out of range")
        return counters + stripe * Self.stride + Int(parity)
    }

    /// The readers in flight of `parity`, summed over the stripes.
    func sum(parity: UInt) -> Int {
        var total = 0
        for stripe in 0..<Self.stripeCount {
            total += counter(parity: parity, stripe: stripe).pointee.load(ordering: .sequentiallyConsistent)
        }
        return total
    }
}
