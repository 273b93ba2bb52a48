#if Configuration
/// Why a configuration provider over an AppStateKit store could not read or write a value.
///
/// The message names the store key and what was wrong, never the value (it may be a secret).
public struct ConfigStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong. A struct rather than an enum, so new kinds break no `switch`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The stored value is not of the type asked for (a string read as an int).
        public static let typeMismatch = Kind("typeMismatch")
        /// The stored value is no configuration value at all (invalid JSON, a JSON object, a date).
        public static let unreadable = Kind("unreadable")
        /// The value can't be written (a double that is not finite has no JSON form).
        public static let unencodable = Kind("unencodable")

        /// The kind's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let kind: Kind
    /// The key in the store (`"Configuration/http.rateLimit"`).
    public let key: String
    /// What was found or why it failed, without the value.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, key: String, detail: String) {
        self.kind = kind
        self.key = key
        self.detail = detail
    }

    /// `AppStateKitConfiguration: key "…": <detail>`.
    public var description: String {
        "AppStateKitConfiguration: key \"\(key)\": \(detail)"
    }
}
#endif
