/// The registry's created entries: an open-addressing table over ``EntryKey/fastHash``, probed
/// linearly. A probe compares the stored hashes (plain integers) and looks at an entry's key
/// only when its hash matches, so a lookup neither hashes nor copies a key.
///
/// Next to each entry the table keeps the entry's ``RegistryEntry/tableSnapshot`` — for a
/// dependency, the box of its current instance — so a dependency read takes the table's lock
/// alone (see ``Registry/dependencyValue(for:as:)``).
///
/// Removal shifts the entries after the removed one back (no tombstones), so a lookup stops at
/// the first empty bucket.
@usableFromInline
struct EntryTable: Sendable {
    /// Each bucket's entry's ``EntryKey/fastHash``; `nil` for an empty bucket.
    @usableFromInline var hashes: [Int?] = Array(repeating: nil, count: 16)
    @usableFromInline var entries: [RegistryEntry?] = Array(repeating: nil, count: 16)
    /// Each entry's ``RegistryEntry/tableSnapshot`` as of its last refresh.
    @usableFromInline var snapshots: [(AnyObject & Sendable)?] = Array(repeating: nil, count: 16)
    /// The number of entries.
    private(set) var count = 0

    init() {}

    /// `body` applied to the entry and snapshot of bucket `index`, which holds an entry, borrowed
    /// from the arrays' storage: reading them through the subscripts would retain and release
    /// each (atomic writes to memory every thread reading the entry shares).
    @inlinable @inline(__always)
    func withEntry<Result>(at index: Int, _ body: (RegistryEntry, (AnyObject & Sendable)?) -> Result) -> Result {
        entries.withUnsafeBufferPointer { entries in
            snapshots.withUnsafeBufferPointer { snapshots in body(entries[index]!, snapshots[index]) }
        }
    }

    /// `body` applied to the entry of bucket `index`, borrowed (see the other `withEntry`).
    @inlinable @inline(__always)
    func withEntry<Result>(at index: Int, _ body: (RegistryEntry) -> Result) -> Result {
        entries.withUnsafeBufferPointer { body($0[index]!) }
    }

    /// The bucket of `key`'s entry, if any.
    @inlinable
    func index(of key: borrowing EntryKey) -> Int? {
        let mask = hashes.count - 1
        var index = key.fastHash & mask
        while let hash = hashes[index] {
            if hash == key.fastHash, withEntry(at: index, { $0.holds(key) }) { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// The entry for `key`, if any.
    func find(_ key: borrowing EntryKey) -> RegistryEntry? {
        index(of: key).flatMap { entries[$0] }
    }

    /// The entry `reference` names, if the table holds it.
    func find(_ reference: EntryReference) -> RegistryEntry? {
        let mask = hashes.count - 1
        var index = reference.fastHash & mask
        while hashes[index] != nil {
            if withEntry(at: index, { ObjectIdentifier($0) }) == reference.object { return entries[index] }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Adds `entry`, whose key the table doesn't hold yet.
    mutating func insert(_ entry: RegistryEntry) {
        assert(find(entry.key) == nil, "AppStateKit: internal error: \(entry.key.readable) was added to the registry twice")
        if (count + 1) * 4 > hashes.count * 3 { grow() }
        place(entry, snapshot: entry.tableSnapshot)
        count += 1
    }

    /// Replaces the snapshot kept for `entry` (the very object) with its current one; does
    /// nothing if the table doesn't hold it (a removed entry).
    mutating func refreshSnapshot(of entry: RegistryEntry) {
        guard let index = index(of: entry.key), entries[index] === entry else { return }
        snapshots[index] = entry.tableSnapshot
    }

    /// Removes `entry` if the table holds it (the very object); returns whether it did.
    mutating func remove(_ entry: RegistryEntry) -> Bool {
        guard let index = index(of: entry.key), entries[index] === entry else { return false }
        clear(index)
        count -= 1
        closeGap(at: index)
        return true
    }

    /// Every entry, in no particular order.
    var all: [RegistryEntry] { entries.compactMap { $0 } }

    /// Moves the entries after the emptied bucket `gap` back where a lookup would miss them.
    private mutating func closeGap(at gap: Int) {
        let mask = hashes.count - 1
        var gap = gap
        var index = (gap + 1) & mask
        while let hash = hashes[index] {
            // The entry may move into the gap unless its home is cyclically within (gap, index].
            let home = hash & mask
            if (gap - home) & mask < (index - home) & mask {
                hashes[gap] = hash
                entries[gap] = entries[index]
                snapshots[gap] = snapshots[index]
                clear(index)
                gap = index
            }
            index = (index + 1) & mask
        }
    }

    private mutating func clear(_ index: Int) {
        hashes[index] = nil
        entries[index] = nil
        snapshots[index] = nil
    }

    private mutating func place(_ entry: RegistryEntry, snapshot: (AnyObject & Sendable)?) {
        let mask = hashes.count - 1
        var index = entry.key.fastHash & mask
        while hashes[index] != nil { index = (index + 1) & mask }
        hashes[index] = entry.key.fastHash
        entries[index] = entry
        snapshots[index] = snapshot
    }

    private mutating func grow() {
        let (oldEntries, oldSnapshots) = (entries, snapshots)
        let size = hashes.count * 2
        hashes = Array(repeating: nil, count: size)
        entries = Array(repeating: nil, count: size)
        snapshots = Array(repeating: nil, count: size)
        for (entry, snapshot) in zip(oldEntries, oldSnapshots) {
            if let entry { place(entry, snapshot: snapshot) }
        }
    }
}
