/// A dependency cycle found while resolving entries: a programmer error that stops the process.
struct DependencyCycle {
    /// The keys from the outermost resolution to the repeated one, e.g. `A → B → A`.
    let chain: [EntryKey]

    /// The diagnostic printed when the process stops.
    var message: String {
        let path = chain.map(\.readable).joined(separator: " → ")
        return """
            AppStateKit: dependency cycle: \(path). \
            An initial value or factory resolves an entry that is still being created. \
            Break the cycle by resolving one of them lazily (inside a method instead of the initializer).
            """
    }

    func stop() -> Never {
        fatalError(message)
    }
}
