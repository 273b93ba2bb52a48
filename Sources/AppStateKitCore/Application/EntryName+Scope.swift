extension EntryName {
    /// The scope AppState exposes for the name.
    package var scope: Application.Scope {
        switch self {
        case let .explicit(feature, id): Application.Scope(name: feature, id: id)
        case let .site(site): Application.Scope(name: "App", id: site.readable)
        }
    }
}
