/// The identity of one registry entry: what kind of entry it is, the type of its value, and
/// what it is called.
///
/// Kind and value type are part of the identity, so a `State<Int>` and a `Dependency<Int>` (or
/// a `State<String>`) with the same name are different entries and a lookup never needs a
/// dynamic cast. `name` is either the explicit `feature`/`id` pair or the declaring call site.
/// Every part hashes as integers except explicit names, whose strings the caller supplies.
@usableFromInline
struct EntryKey: Hashable, Sendable {
    @usableFromInline let kind: ObjectIdentifier
    @usableFromInline let valueType: ObjectIdentifier
    @usableFromInline let name: EntryName

    /// A key for an entry of `kind` (usually a marker type) holding values of `valueType`.
    @inlinable
    init(kind: EntryKind, valueType: Any.Type, name: EntryName) {
        self.kind = kind.identifier
        self.valueType = ObjectIdentifier(valueType)
        self.name = name
    }

    /// A key whose kind is identified by an arbitrary type, e.g. the entry class itself.
    init(kind: ObjectIdentifier, name: EntryName) {
        self.kind = kind
        self.valueType = ObjectIdentifier(Void.self)
        self.name = name
    }

    /// The form shown in descriptions, logs and error messages.
    var readable: String { name.readable }

    @inlinable
    static func == (lhs: EntryKey, rhs: EntryKey) -> Bool {
        lhs.kind == rhs.kind && lhs.valueType == rhs.valueType && lhs.name == rhs.name
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        // Fold the integer parts into one word so hashing a call-site key is a single round.
        let typeBits = UInt(bitPattern: kind) &* 31 &+ UInt(bitPattern: valueType)
        switch name {
        case let .site(site):
            hasher.combine(typeBits &* 1_000_003 &+ UInt(bitPattern: site.mixedBits))
        case let .explicit(feature, id):
            hasher.combine(typeBits)
            hasher.combine(feature)
            hasher.combine(id)
        }
    }
}

/// The kinds of entries the registry holds.
@usableFromInline
struct EntryKind: Sendable {
    @usableFromInline let identifier: ObjectIdentifier

    @usableFromInline
    init(identifier: ObjectIdentifier) {
        self.identifier = identifier
    }

    @usableFromInline enum StateMarker {}
    @usableFromInline enum DependencyMarker {}
    @usableFromInline enum StoredStateMarker {}
    @usableFromInline enum FileStateMarker {}

    /// ``Application/State``.
    @inlinable static var state: EntryKind { EntryKind(identifier: ObjectIdentifier(StateMarker.self)) }
    /// ``Application/Dependency``.
    @inlinable static var dependency: EntryKind { EntryKind(identifier: ObjectIdentifier(DependencyMarker.self)) }
    /// ``Application/StoredState``.
    @inlinable static var storedState: EntryKind { EntryKind(identifier: ObjectIdentifier(StoredStateMarker.self)) }
    /// ``Application/FileState``.
    @inlinable static var fileState: EntryKind { EntryKind(identifier: ObjectIdentifier(FileStateMarker.self)) }
}

/// How an entry is named: explicitly, or by where it is declared.
@usableFromInline
enum EntryName: Hashable, Sendable {
    /// `feature:` and `id:` given at the declaration.
    case explicit(feature: String, id: String)
    /// No `id:`: the declaring call site.
    case site(CallSite)

    @inlinable
    init(feature: String, id: String) {
        self = .explicit(feature: feature, id: id)
    }

    @inlinable
    init(fileID: StaticString, function: StaticString, line: Int, column: Int) {
        self = .site(CallSite(fileID: fileID, function: function, line: line, column: column))
    }

    @inlinable
    static func == (lhs: EntryName, rhs: EntryName) -> Bool {
        switch (lhs, rhs) {
        case let (.site(a), .site(b)): a == b
        case let (.explicit(f1, i1), .explicit(f2, i2)): f1 == f2 && i1 == i2
        default: false
        }
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        switch self {
        case let .site(site): hasher.combine(site.mixedBits)
        case let .explicit(feature, id):
            hasher.combine(feature)
            hasher.combine(id)
        }
    }

    /// `App.counter` for explicit names, `Module/File.swift:12:9 (counter)` for call sites.
    var readable: String {
        switch self {
        case let .explicit(feature, id): "\(feature).\(id)"
        case let .site(site): site.readable
        }
    }

    /// The scope AppState exposes for the name.
    var scope: Application.Scope {
        switch self {
        case let .explicit(feature, id): Application.Scope(name: feature, id: id)
        case let .site(site): Application.Scope(name: "App", id: site.readable)
        }
    }
}
