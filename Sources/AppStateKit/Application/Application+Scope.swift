extension Application {
    /// The name of an entry as AppState exposes it: a feature and an id.
    public struct Scope: Sendable, Hashable {
        /// The feature (namespace) of the entry; `"App"` unless declared otherwise.
        public let name: String
        /// The entry's id within its feature.
        public let id: String

        /// Creates a scope.
        public init(name: String, id: String) {
            self.name = name
            self.id = id
        }

        /// `"name/id"`.
        public var key: String { "\(name)/\(id)" }
    }
}
