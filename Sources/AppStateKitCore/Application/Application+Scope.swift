extension Application {
    /// The name of an entry as AppState exposes it: a feature and an id.
    public struct Scope: Sendable, Hashable {
        /// The feature (namespace) of the entry; `"App"` unless declared otherwise.
        public let name: String
        /// The entry's id within its feature.
        public let id: String

        /// `"name/id"`.
        public var key: String { "\(name)/\(id)" }
    }
}

extension Application {
    /// The id a declaration made without one gets: its call site, as ``Scope/id`` and logs show
    /// it (`Module/File.swift:12:9 (counter)`). AppState has the same internal helper, so tests
    /// ported from it can call it through `@testable import`.
    static func codeID(fileID: StaticString, function: StaticString, line: Int, column: Int) -> String {
        CallSite(fileID: fileID, function: function, line: line, column: column).readable
    }
}
