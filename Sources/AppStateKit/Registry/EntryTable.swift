/// The registry's table of created entries: open addressing over ``EntryKey/fastHash``.
///
/// A bucket holds the key's hash and the entry (retained by the table); keys are compared with
/// the key the entry holds. Unlike a `Dictionary<EntryKey, RegistryEntry>` it never runs
/// `Hasher`, neither on lookup nor when it grows, and takes 16 bytes per bucket. Entries are
/// only ever added. Not synchronised: the registry calls it with its lock held.
struct EntryTable: ~Copyable {
    /// `hashes[i] == 0` marks an empty bucket; stored hashes always have their low bit set.
    private var hashes: UnsafeMutablePointer<Int>
    private var entries: UnsafeMutablePointer<Unmanaged<RegistryEntry>>
    private var mask: Int
    private(set) var count = 0

    init() {
        (hashes, entries) = Self.allocate(capacity: 16)
        mask = 15
    }

    deinit {
        for index in 0...mask where hashes[index] != 0 {
            entries[index].release()
        }
        hashes.deallocate()
        entries.deallocate()
    }

    /// The entry for `key`, if it was added.
    func entry(for key: EntryKey) -> RegistryEntry? {
        let hash = key.fastHash | 1
        var index = hash & mask
        while hashes[index] != 0 {
            if hashes[index] == hash, entries[index]._withUnsafeGuaranteedRef({ $0.key.matches(key) }) {
                return entries[index].takeUnretainedValue()
            }
            index = (index &+ 1) & mask
        }
        return nil
    }

    /// Adds `entry` under its own key, which must not be in the table yet.
    mutating func add(_ entry: RegistryEntry) {
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        place(hash: entry.key.fastHash | 1, entry: Unmanaged.passRetained(entry))
        count += 1
    }

    /// Every entry, in no particular order.
    var all: [RegistryEntry] {
        var result: [RegistryEntry] = []
        result.reserveCapacity(count)
        for index in 0...mask where hashes[index] != 0 {
            result.append(entries[index].takeUnretainedValue())
        }
        return result
    }

    private mutating func place(hash: Int, entry: Unmanaged<RegistryEntry>) {
        var index = hash & mask
        while hashes[index] != 0 { index = (index &+ 1) & mask }
        hashes[index] = hash
        (entries + index).initialize(to: entry)
    }

    private mutating func grow() {
        let (oldHashes, oldEntries, oldCapacity) = (hashes, entries, mask + 1)
        (hashes, entries) = Self.allocate(capacity: oldCapacity * 2)
        mask = oldCapacity * 2 - 1
        for index in 0..<oldCapacity where oldHashes[index] != 0 {
            place(hash: oldHashes[index], entry: (oldEntries + index).move())
        }
        oldHashes.deallocate()
        oldEntries.deallocate()
    }

    private static func allocate(capacity: Int) -> (UnsafeMutablePointer<Int>, UnsafeMutablePointer<Unmanaged<RegistryEntry>>) {
        let hashes = UnsafeMutablePointer<Int>.allocate(capacity: capacity)
        hashes.initialize(repeating: 0, count: capacity)
        return (hashes, .allocate(capacity: capacity))
    }
}
