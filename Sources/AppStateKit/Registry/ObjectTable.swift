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
/// neither on lookup nor when it grows. Probing is linear; removal shifts the following run of
/// buckets back (no tombstones), so lookups never slow down after removals. The table keeps at
/// most half its buckets full so probes stay short, and shrinks when it falls below an eighth.
/// Not synchronised.
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
    /// released. (The probe of ``find(fastHash:where:)``, written out: a closure capturing the
    /// key copies it, 60 more instructions on every registry read.)
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

    /// The object stored under `fastHash` that `matches` accepts, unretained (see
    /// ``find(_:)``): for a lookup that compares something other than a whole key.
    @inlinable @inline(__always)
    func find(fastHash: Int, where matches: (Object) -> Bool) -> Unmanaged<Object>? {
        let hash = fastHash | 1
        var index = hash & mask
        while true {
            let stored = hashes[index]
            if stored == 0 { return nil }
            if stored == hash, objects[index]._withUnsafeGuaranteedRef(matches) { return objects[index] }
            index = (index &+ 1) & mask
        }
    }

    /// Adds `object` for `key`; the caller makes sure the table has no object for it yet
    /// (checked in debug builds: a second object would shadow or be shadowed by the first).
    @inline(__always)
    mutating func add(_ object: Object, for key: EntryKey) {
        assert(find(key) == nil, "AppStateKit: internal error: \(key.readable) was added to an ObjectTable twice")
        if (count + 1) * 2 > mask + 1 { resize(to: (mask + 1) * 2) }
        place(hash: key.fastHash | 1, object: Unmanaged.passRetained(object))
        count += 1
    }

    /// Removes the object stored for `key` if `shouldRemove` accepts it, and returns it
    /// (released when the caller lets it go, so the caller decides where that happens).
    mutating func remove(_ key: borrowing EntryKey, where shouldRemove: (Object) -> Bool = { _ in true }) -> Object? {
        let hash = key.fastHash | 1
        var index = hash & mask
        while true {
            let stored = hashes[index]
            if stored == 0 { return nil }
            if stored == hash, objects[index]._withUnsafeGuaranteedRef({ $0.holds(key) }) { break }
            index = (index &+ 1) & mask
        }
        guard objects[index]._withUnsafeGuaranteedRef(shouldRemove) else { return nil }
        let removed = (objects + index).move().takeRetainedValue()
        hashes[index] = 0
        count -= 1
        // Close the gap: move back each following object whose home bucket is not between the
        // hole and where it sits, so every object stays reachable from its home without gaps.
        var hole = index
        var next = (index &+ 1) & mask
        while hashes[next] != 0 {
            let home = hashes[next] & mask
            if (next &- home) & mask >= (next &- hole) & mask {
                hashes[hole] = hashes[next]
                (objects + hole).initialize(to: (objects + next).move())
                hashes[next] = 0
                hole = next
            }
            next = (next &+ 1) & mask
        }
        if mask + 1 > 16, count * 8 < mask + 1 { resize(to: (mask + 1) / 2) }
        return removed
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

    /// Moves every object into `capacity` buckets (a power of two, more than twice `count`).
    private mutating func resize(to capacity: Int) {
        let (oldHashes, oldObjects, oldCapacity) = (hashes, objects, mask + 1)
        (hashes, objects) = Self.allocate(capacity: capacity)
        mask = capacity - 1
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
