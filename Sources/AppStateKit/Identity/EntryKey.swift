/// The identity of one registry entry: what kind of entry it is and what it is called.
///
/// `kind` is the entry's box type (for example `StateEntry<Int>`), so a `State<Int>` and a
/// `Dependency<Int>` with the same name are different entries and a lookup never needs a dynamic
/// cast. `name` is either the explicit `feature`/`id` pair or the declaring call site.
struct EntryKey: Hashable, Sendable {
    let kind: ObjectIdentifier
    let name: EntryName

    init(kind: ObjectIdentifier, name: EntryName) {
        self.kind = kind
        self.name = name
    }

    /// The form shown in descriptions, logs and error messages.
    var readable: String { name.readable }
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
