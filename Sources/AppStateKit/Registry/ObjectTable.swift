/// An object that can be found by an ``EntryKey``: a registry entry, or a thread's memo slot.
@usableFromInline
protocol KeyedObject: AnyObject {
    /// Whether the object is the one stored for `key`, compared in place.
    func holds(_ key: borrowing EntryKey) -> Bool
}

/// An open-addressing hash table of objects by ``EntryKey``: the registry's created entries
/// (`Registry`) and each thread's memo of lookups (`ThreadLookupCache`).
///
/// A bucket holds the key's hash and the object (retained by the table), 16 bytes; keys are
/// compared with the key the object holds. Unlike a `Dictionary` it never runs `Hasher`,
/// neither on lookup nor when it grows. Objects are only ever added, and the table keeps at
/// most half its buckets full so probes stay short. Not synchronised.
@usableFromInline
struct ObjectTable<Object: KeyedObject>: ~Copyable {
    /// `hashes[i] == 0` marks an empty bucket; stored hashes always have their low bit set.
    @usableFromInline var hashes: UnsafeMutablePointer<Int>
    @usableFromInline var objects: UnsafeMutablePointer<Unmanaged<Object>>
    @usableFromInline var mask: Int
    private(set) var count = 0

    init() {
        (hashes, objects) = Self.allocate(capacity: 16)
        mask = 15
    }

    // Inlinable: the memo's table is part of the inlinable read path, and Swift 6.3.1 crashes
    // if an inlinable setter of that property would have to call a non-inlinable deinit.
    @inlinable
    deinit {
        for index in 0...mask where hashes[index] != 0 {
            objects[index].release()
        }
        hashes.deallocate()
        objects.deallocate()
    }

    /// The object stored for `key`, unretained: the table keeps it alive until the table is
    /// released.
    @inlinable @inline(__always)
    func find(_ key: borrowing EntryKey) -> Unmanaged<Object>? {
        let hash = key.fastHash | 1
        var index = hash & mask
        while true {
            let stored = hashes[index]
            if stored == 0 { return nil }
            if stored == hash, objects[index]._withUnsafeGuaranteedRef({ $0.holds(key) }) { return objects[index] }
            index = (index &+ 1) & mask
        }
    }

    /// Adds `object` for `key`; the caller makes sure the table has no object for it yet.
    mutating func add(_ object: Object, for key: EntryKey) {
        if (count + 1) * 2 > mask + 1 { grow() }
        place(hash: key.fastHash | 1, object: Unmanaged.passRetained(object))
        count += 1
    }

    /// Every object, in no particular order.
    var all: [Object] {
        var result: [Object] = []
        result.reserveCapacity(count)
        for index in 0...mask where hashes[index] != 0 {
            result.append(objects[index].takeUnretainedValue())
        }
        return result
    }

    /// Empties the table and returns what it held; the objects are released when the returned
    /// table is, which the caller can arrange to happen once its own state is consistent.
    mutating func takeAll() -> ObjectTable {
        var taken = ObjectTable()
        swap(&self, &taken)
        return taken
    }

    private mutating func place(hash: Int, object: Unmanaged<Object>) {
        var index = hash & mask
        while hashes[index] != 0 { index = (index &+ 1) & mask }
        hashes[index] = hash
        (objects + index).initialize(to: object)
    }

    private mutating func grow() {
        let (oldHashes, oldObjects, oldCapacity) = (hashes, objects, mask + 1)
        (hashes, objects) = Self.allocate(capacity: oldCapacity * 2)
        mask = oldCapacity * 2 - 1
        for index in 0..<oldCapacity where oldHashes[index] != 0 {
            place(hash: oldHashes[index], object: (oldObjects + index).move())
        }
        oldHashes.deallocate()
        oldObjects.deallocate()
    }

    private static func allocate(capacity: Int) -> (UnsafeMutablePointer<Int>, UnsafeMutablePointer<Unmanaged<Object>>) {
        let hashes = UnsafeMutablePointer<Int>.allocate(capacity: capacity)
        hashes.initialize(repeating: 0, count: capacity)
        return (hashes, .allocate(capacity: capacity))
    }
}
