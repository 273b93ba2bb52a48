/// The identity of one registry entry: what kind of entry it is, the type of its value, and
/// what it is called.
///
/// Kind and value type are part of the identity, so a `State<Int>` and a `Dependency<Int>` (or
/// a `State<String>`) with the same name are different entries and a lookup never needs a
/// dynamic cast. `name` is either the explicit `feature`/`id` pair or the declaring call site.
/// Every part hashes as integers except explicit names, whose strings the caller supplies.
struct EntryKey: Hashable, Sendable {
    let kind: ObjectIdentifier
    let valueType: ObjectIdentifier
    let name: EntryName

    /// A key for an entry of `kind` (usually a marker type) holding values of `valueType`.
    @inline(__always)
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

    @inline(__always)
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
struct EntryKind: Sendable {
    let identifier: ObjectIdentifier

    private enum StateMarker {}
    private enum DependencyMarker {}
    private enum StoredStateMarker {}
    private enum FileStateMarker {}

    /// ``Application/State``.
    static var state: EntryKind { EntryKind(identifier: ObjectIdentifier(StateMarker.self)) }
    /// ``Application/Dependency``.
    static var dependency: EntryKind { EntryKind(identifier: ObjectIdentifier(DependencyMarker.self)) }
    /// ``Application/StoredState``.
    static var storedState: EntryKind { EntryKind(identifier: ObjectIdentifier(StoredStateMarker.self)) }
    /// ``Application/FileState``.
    static var fileState: EntryKind { EntryKind(identifier: ObjectIdentifier(FileStateMarker.self)) }
}

/// How an entry is named: explicitly, or by where it is declared.
enum EntryName: Hashable, Sendable {
    /// `feature:` and `id:` given at the declaration.
    case explicit(feature: String, id: String)
    /// No `id:`: the declaring call site.
    case site(CallSite)

    init(feature: String, id: String) {
        self = .explicit(feature: feature, id: id)
    }

    @inline(__always)
    init(fileID: StaticString, function: StaticString, line: Int, column: Int) {
        self = .site(CallSite(fileID: fileID, function: function, line: line, column: column))
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
