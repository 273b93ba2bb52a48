#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A per-thread memo of `Hasher`'s hash of two strings, so that an explicit entry name
/// (`feature`, `id`) built on every access is hashed once per thread rather than on every access.
///
/// The hash is exactly what a fresh `Hasher` gives — seeded per process, so ids a client chooses
/// can't be made to collide — only remembered. A row is found by the strings' raw bits (for a
/// literal or a stored string they repeat on every access) and answers only when both strings'
/// bits equal the row's. The memo keeps the strings each row was made for, so their storage can't
/// be freed and reused by other contents while the row exists: equal bits then mean equal strings
/// (a small string's bits are its contents; a larger one's name storage that the row keeps alive,
/// which is never mutated in place while shared). Strings with other bits — the same text built
/// anew — only miss, and are hashed.
///
/// Rows are touched only by the owning thread (the memo is thread-local), so they take no lock.
@usableFromInline
final class StringPairHashes {
    /// One remembered pair: the two strings' raw bits and their hash. The strings themselves
    /// are kept in ``kept`` (touched only on a miss), which keeps their bits meaning them.
    @usableFromInline
    struct Row {
        @usableFromInline var bits: (UInt64, UInt64, UInt64, UInt64)
        @usableFromInline var hash: Int
    }

    /// The number of sets, a power of two. Each set holds two rows, the more recently made
    /// first, so two pairs a thread keeps using never evict each other however their bits
    /// fall; it takes three in one set (about 1% for five pairs) to make one of them miss.
    @usableFromInline static let setCount = 32
    /// The rows, two per set chosen by ``index(_:)``; every row always holds a valid pair.
    @usableFromInline let rows: UnsafeMutablePointer<Row>
    /// The strings of each row, at the row's position.
    let kept: UnsafeMutablePointer<(String, String)>

    init() {
        rows = .allocate(capacity: 2 * Self.setCount)
        kept = .allocate(capacity: 2 * Self.setCount)
        rows.initialize(repeating: Row(bits: Self.bits("", ""), hash: Self.hashed("", "")), count: 2 * Self.setCount)
        kept.initialize(repeating: ("", ""), count: 2 * Self.setCount)
    }

    deinit {
        rows.deinitialize(count: 2 * Self.setCount)
        rows.deallocate()
        kept.deinitialize(count: 2 * Self.setCount)
        kept.deallocate()
    }

    /// `Hasher`'s hash of `first` then `second`, remembered for this thread.
    @inlinable @inline(__always)
    static func hash(_ first: String, _ second: String) -> Int {
        guard MemoryLayout<String>.size == 16, let pointer = pthread_getspecific(threadKey) else {
            return hashMakingMemo(first, second)
        }
        let bits = Self.bits(first, second)
        let memo = Unmanaged<StringPairHashes>.fromOpaque(pointer)
        let row = memo._withUnsafeGuaranteedRef { $0.rows + 2 * index(bits) }
        if row[0].bits == bits { return row[0].hash }
        if row[1].bits == bits { return row[1].hash }
        return memo._withUnsafeGuaranteedRef { $0.hashOnMiss(first, second, bits: bits) }
    }

    /// The raw bits of two strings (16 bytes each on 64-bit platforms, checked by the caller).
    @inlinable @inline(__always)
    static func bits(_ first: String, _ second: String) -> (UInt64, UInt64, UInt64, UInt64) {
        guard MemoryLayout<String>.size == 16 else { return (0, 0, 0, 0) }
        let a = unsafeBitCast(first, to: (UInt64, UInt64).self)
        let b = unsafeBitCast(second, to: (UInt64, UInt64).self)
        return (a.0, a.1, b.0, b.1)
    }

    /// The set for `bits`.
    @inlinable @inline(__always)
    static func index(_ bits: (UInt64, UInt64, UInt64, UInt64)) -> Int {
        let mixed = (bits.0 ^ bits.1 &* 0x9E37_79B9_7F4A_7C15 ^ bits.2 &* 0xC2B2_AE3D_27D4_EB4F ^ bits.3) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: mixed >> 58) & (setCount - 1)
    }

    /// The hash, computed and remembered as the first row of the set for `bits`; the set's
    /// first row moves to its second, whose pair is forgotten.
    @usableFromInline @inline(never)
    func hashOnMiss(_ first: String, _ second: String, bits: (UInt64, UInt64, UInt64, UInt64)) -> Int {
        let hash = Self.hashed(first, second)
        let position = 2 * Self.index(bits)
        rows[position + 1] = rows[position]
        rows[position] = Row(bits: bits, hash: hash)
        // The forgotten strings are released here (no user code: a string's storage frees
        // nothing else).
        kept[position + 1] = kept[position]
        kept[position] = (first, second)
        return hash
    }

    /// The hash, on the calling thread's first use (or where strings aren't 16 bytes): makes
    /// the thread's memo and remembers the pair in it.
    @usableFromInline @inline(never)
    static func hashMakingMemo(_ first: String, _ second: String) -> Int {
        guard MemoryLayout<String>.size == 16 else { return hashed(first, second) }
        return current.hashOnMiss(first, second, bits: Self.bits(first, second))
    }

    /// `Hasher`'s hash of `first` then `second`.
    static func hashed(_ first: String, _ second: String) -> Int {
        var hasher = Hasher()
        hasher.combine(first)
        hasher.combine(second)
        return hasher.finalize()
    }

    /// The calling thread's memo, made on first use.
    static var current: StringPairHashes {
        if let pointer = pthread_getspecific(threadKey) {
            return Unmanaged<StringPairHashes>.fromOpaque(pointer).takeUnretainedValue()
        }
        let memo = StringPairHashes()
        let result = pthread_setspecific(threadKey, Unmanaged.passRetained(memo).toOpaque())
        precondition(result == 0, "AppStateKit: pthread_setspecific failed with \(result)")
        return memo
    }

    /// The pthread key of the memo; its destructor releases a thread's memo when the thread exits.
    @usableFromInline static let threadKey: pthread_key_t = ThreadLocalKey.releasingObjects()
}
