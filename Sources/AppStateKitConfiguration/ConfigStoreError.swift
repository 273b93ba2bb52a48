#if Configuration
/// Why a configuration provider over an AppStateKit store could not read or write a value, or
/// could not start.
///
/// The message names the store key and what was wrong, never the value (it may be a secret).
/// The ``description`` has the format every AppStateKit error shares, `<kind> for <subject>:
/// <detail>`, and the fields the same names: ``kind``, ``key``, ``detail``.
public struct ConfigStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong. A struct rather than an enum, so new kinds break no `switch`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The stored value is not of the type asked for (a string read as an int).
        public static let typeMismatch = Kind("type mismatch")
        /// The stored value is no configuration value at all (invalid JSON, a JSON object, a date).
        public static let unreadable = Kind("unreadable")
        /// The value can't be written (a double that is not finite has no JSON form).
        public static let unencodable = Kind("unencodable")
        /// The namespace a provider was created with can't be the first part of a store key:
        /// it is empty or holds `/` or `%`. ``ConfigStoreError/key`` is the namespace.
        public static let invalidNamespace = Kind("invalid namespace")

        /// The kind in a few words, as messages show it (`type mismatch`).
        public var description: String { name }
    }

    /// What went wrong.
    public let kind: Kind
    /// The key in the store (`"Configuration/http.rateLimit"`); for
    /// ``Kind/invalidNamespace``, the namespace.
    public let key: String
    /// What was found or why it failed, without the value.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, key: String, detail: String) {
        self.kind = kind
        self.key = key
        self.detail = detail
    }

    /// `<kind> for configuration key "<key>": <detail>` (`… for configuration namespace "<name>":
    /// …` for ``Kind/invalidNamespace``), for example
    /// `type mismatch for configuration key "Configuration/http.speed": the stored value is a
    /// string, which does not read as int`. A provider reports it through the logger as
    /// `AppStateKitConfiguration: <description>; …`.
    public var description: String {
        let subject = kind == .invalidNamespace ? "configuration namespace" : "configuration key"
        return "\(kind) for \(subject) \"\(key)\": \(detail)"
    }
}
#endif
