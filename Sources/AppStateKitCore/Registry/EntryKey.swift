/// The identity of one registry entry: what kind of entry it is, the type of its value, and
/// what it is called.
///
/// Kind and value type are part of the identity, so a `State<Int>` and a `Dependency<Int>` (or
/// a `State<String>`) with the same name are different entries and a lookup never needs a
/// dynamic cast. `name` is either the explicit `feature`/`id` pair or the declaring call site.
/// Every part hashes as integers except explicit names, whose strings the caller supplies.
@usableFromInline
package struct EntryKey: Hashable, Sendable {
    @usableFromInline package let kind: ObjectIdentifier
    @usableFromInline package let valueType: ObjectIdentifier
    @usableFromInline package let name: EntryName
    /// A well-mixed hash of the other fields, computed once per key: tables probe and rehash
    /// with it, and explicit names' strings are hashed only when a key is made.
    @usableFromInline package let fastHash: Int

    /// A key for an entry of `kind` (usually a marker type) holding values of `valueType`.
    @inlinable @inline(__always)
    package init(kind: EntryKind, valueType: Any.Type, name: EntryName) {
        self.kind = kind.identifier
        self.valueType = ObjectIdentifier(valueType)
        self.name = name
        self.fastHash = EntryKey.mix(kind: self.kind, valueType: self.valueType, name: name)
    }

    /// A key for an entry of `kind` named by `feature` and `id`.
    @inlinable
    package init(kind: EntryKind, valueType: Any.Type, feature: String, id: String) {
        self.init(kind: kind, valueType: valueType, name: .explicit(feature: feature, id: id))
    }

    /// The hash of an explicit name: the length and the last ``hashedSuffix`` UTF-8 bytes of
    /// each part, eight at a time, mixed with a seed drawn once per process (so which ids
    /// collide differs from run to run). Named declarations hash their name on every access,
    /// so this is cheaper than `Hasher`; only the tail, because a FileState's feature is an
    /// absolute path. Names that differ only further in share a hash and are told apart by the
    /// key comparison every lookup makes anyway.
    @inlinable
    package static func nameHash(feature: String, id: String) -> Int {
        let first = mixBytes(of: feature, into: NameSeed.value)
        return Int(truncatingIfNeeded: mixBytes(of: id, into: first ^ 0x9E37_79B9_7F4A_7C15))
    }

    /// How many trailing UTF-8 bytes of each name part ``nameHash(feature:id:)`` mixes in.
    @usableFromInline package static var hashedSuffix: Int { 24 }

    /// `seed` with the last ``hashedSuffix`` UTF-8 bytes of `string` and its length mixed in.
    @inlinable @inline(__always)
    package static func mixBytes(of string: String, into seed: UInt64) -> UInt64 {
        let count = UInt64(string.utf8.count)
        if let hash = string.utf8.withContiguousStorageIfAvailable({ mixBytes($0.suffix(hashedSuffix), into: seed ^ count) }) {
            return hash
        }
        return mixBytes(Array(string.utf8.suffix(hashedSuffix)), into: seed ^ count)
    }

    /// `seed` with `bytes` and their count mixed in.
    @inlinable @inline(__always)
    package static func mixBytes(_ bytes: some Collection<UInt8>, into seed: UInt64) -> UInt64 {
        var hash = seed ^ UInt64(bytes.count) &* 0xC2B2_AE3D_27D4_EB4F
        var word: UInt64 = 0
        var filled: UInt64 = 0
        for byte in bytes {
            word |= UInt64(byte) << (filled &* 8)
            filled &+= 1
            if filled == 8 {
                hash = mix(hash, word)
                word = 0
                filled = 0
            }
        }
        return mix(hash, word)
    }

    /// One round of a multiply-xorshift mix.
    @inlinable @inline(__always)
    package static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (hash ^ word) &* 0xBF58_476D_1CE4_E5B9
        return mixed ^ (mixed >> 29)
    }

    /// A key named by `feature` and `id` with a chosen hash (tests use it to make collisions).
    init(kind: ObjectIdentifier, valueType: ObjectIdentifier, feature: String, id: String, fastHash: Int) {
        self.kind = kind
        self.valueType = valueType
        self.name = .explicit(feature: feature, id: id)
        self.fastHash = fastHash
    }

    /// A key whose kind is identified by an arbitrary type, e.g. the entry class itself.
    package init(kind: ObjectIdentifier, name: EntryName) {
        self.kind = kind
        self.valueType = ObjectIdentifier(Void.self)
        self.name = name
        self.fastHash = EntryKey.mix(kind: kind, valueType: valueType, name: name)
    }

    /// The form shown in descriptions, logs and error messages.
    package var readable: String { name.readable }

    @inlinable
    package static func == (lhs: EntryKey, rhs: EntryKey) -> Bool {
        lhs.fastHash == rhs.fastHash && lhs.kind == rhs.kind && lhs.valueType == rhs.valueType && lhs.name == rhs.name
    }

    @inlinable
    package func hash(into hasher: inout Hasher) {
        hasher.combine(fastHash)
    }

    /// `self == other` without the hash, comparing in place: a probe copies no key.
    @inlinable @inline(__always)
    package func matches(_ other: borrowing EntryKey) -> Bool {
        guard kind == other.kind, valueType == other.valueType else { return false }
        if case let .site(site) = name, case let .site(otherSite) = other.name {
            return site == otherSite
        }
        return name == other.name
    }

    /// The ``fastHash`` of a key with these parts.
    @inlinable @inline(__always)
    package static func mix(kind: ObjectIdentifier, valueType: ObjectIdentifier, name: EntryName) -> Int {
        let nameBits = switch name {
        case let .site(site): site.mixedBits &* 0x1656_67B1_9E37_79F9
        case let .explicit(feature, id): nameHash(feature: feature, id: id)
        }
        var bits = UInt64(UInt(bitPattern: kind)) &* 0x9E37_79B9_7F4A_7C15
        bits ^= UInt64(UInt(bitPattern: valueType)) &* 0xC2B2_AE3D_27D4_EB4F
        bits ^= UInt64(UInt(bitPattern: nameBits))
        // Final avalanche (from splitmix64) so the low bits used for table indices are mixed.
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: bits ^ (bits >> 31))
    }
}

/// The per-process seed of ``EntryKey/nameHash(feature:id:)``.
@usableFromInline
package enum NameSeed {
    @usableFromInline package static let value = UInt64.random(in: 0...UInt64.max)
}

/// The kinds of entries the registry holds.
@usableFromInline
package struct EntryKind: Sendable {
    @usableFromInline package let identifier: ObjectIdentifier

    @usableFromInline
    package init(identifier: ObjectIdentifier) {
        self.identifier = identifier
    }

    @usableFromInline package enum StateMarker {}
    @usableFromInline package enum DependencyMarker {}
    @usableFromInline package enum StoredStateMarker {}
    @usableFromInline package enum FileStateMarker {}
    @usableFromInline package enum SyncStateMarker {}

    /// ``Application/State``.
    @inlinable package static var state: EntryKind { EntryKind(identifier: ObjectIdentifier(StateMarker.self)) }
    /// ``Application/Dependency``.
    @inlinable package static var dependency: EntryKind { EntryKind(identifier: ObjectIdentifier(DependencyMarker.self)) }
    /// ``Application/StoredState``.
    @inlinable package static var storedState: EntryKind { EntryKind(identifier: ObjectIdentifier(StoredStateMarker.self)) }
    /// ``Application/FileState``.
    @inlinable package static var fileState: EntryKind { EntryKind(identifier: ObjectIdentifier(FileStateMarker.self)) }
    /// ``Application/SyncState``.
    @inlinable package static var syncState: EntryKind { EntryKind(identifier: ObjectIdentifier(SyncStateMarker.self)) }
}

/// How an entry is named: explicitly, or by where it is declared.
@usableFromInline
package enum EntryName: Equatable, Sendable {
    /// `feature:` and `id:` given at the declaration.
    case explicit(feature: String, id: String)
    /// No `id:`: the declaring call site.
    case site(CallSite)

    @inlinable
    package init(feature: String, id: String) {
        self = .explicit(feature: feature, id: id)
    }

    @inlinable
    package static func == (lhs: EntryName, rhs: EntryName) -> Bool {
        // No `switch (lhs, rhs)`: building that tuple copies both keys on every probe.
        switch lhs {
        case let .site(site):
            if case let .site(other) = rhs { return site == other }
            return false
        case let .explicit(feature, id):
            if case let .explicit(otherFeature, otherID) = rhs { return feature == otherFeature && id == otherID }
            return false
        }
    }

    /// `App.counter` for explicit names, `Module/File.swift:12:9 (counter)` for call sites.
    var readable: String {
        switch self {
        case let .explicit(feature, id): "\(feature).\(id)"
        case let .site(site): site.readable
        }
    }
}

/// The source location of the `state(initial:)`/`dependency(_:)` call that declares an entry
/// without an explicit `id:`.
///
/// Equality and ``mixedBits`` use integers and the static file-name bytes only; no `String` is
/// built on the access path. ``readable`` produces the text form for descriptions, logs and errors.
@usableFromInline
package struct CallSite: Equatable, Sendable {
    @usableFromInline package let fileID: StaticString
    @usableFromInline package let function: StaticString
    @usableFromInline package let line: Int
    @usableFromInline package let column: Int

    @inlinable
    package init(fileID: StaticString, function: StaticString, line: Int, column: Int) {
        self.fileID = fileID
        self.function = function
        self.line = line
        self.column = column
    }

    @inlinable
    package static func == (lhs: CallSite, rhs: CallSite) -> Bool {
        guard lhs.line == rhs.line, lhs.column == rhs.column else { return false }
        return lhs.fileID.sameText(as: rhs.fileID) && lhs.function.sameText(as: rhs.function)
    }

    /// The integer parts mixed into one word; equal sites give equal bits.
    @inlinable
    package var mixedBits: Int {
        line &* 1_000_003 &+ column &* 8191 &+ fileID.utf8CodeUnitCount
    }

    /// `Module/File.swift:12:9 (counter)`.
    var readable: String {
        "\(fileID.description):\(line):\(column) (\(function.description))"
    }
}

extension StaticString {
    /// Compares the bytes of two static strings, short-cutting when they share storage.
    @inlinable
    package func sameText(as other: StaticString) -> Bool {
        let count = utf8CodeUnitCount
        guard count == other.utf8CodeUnitCount else { return false }
        guard hasPointerRepresentation, other.hasPointerRepresentation else {
            return description == other.description
        }
        if utf8Start == other.utf8Start { return true }
        return UnsafeBufferPointer(start: utf8Start, count: count).elementsEqual(UnsafeBufferPointer(start: other.utf8Start, count: count))
    }
}
