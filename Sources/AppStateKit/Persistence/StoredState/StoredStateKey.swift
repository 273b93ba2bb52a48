/// How a ``Application/StoredState``'s feature and id become its key in the store.
///
/// The key is `"<feature>/<id>"` with the feature escaped, so that no two declarations share a
/// key (unescaped, feature `T` with id `a/b` and feature `T/a` with id `b` both made `T/a/b`):
///
/// - A feature without `/` and `%` is used as it is, so the key is byte-identical to what earlier
///   versions and AppState wrote (`"App/port"`).
/// - Otherwise `%` becomes `%25` and `/` becomes `%2F` (`"Settings%2FDisplay/theme"`). The
///   escaped feature holds no `/`, so the first `/` of a key always ends the feature.
///
/// Earlier versions stored such entries under the raw `"<feature>/<id>"`. That legacy key is read
/// as a fallback (while nothing is stored under the new key) only where it cannot be another
/// declaration's key: when the text before its first `/` is not an escaped feature. A legacy key
/// whose feature contains `/` is exactly the key of another declaration (`T/a/b` is feature `T`,
/// id `a/b`), so it is never read for the `T/a` entry: it may hold the other entry's value.
enum StoredStateKey {
    /// The key for `feature` and `id`.
    static func key(feature: String, id: String) -> String {
        "\(escape(feature))/\(id)"
    }

    /// The key earlier versions used, when it differs from ``key(feature:id:)`` and reading it
    /// can't return another declaration's value; otherwise `nil`.
    static func legacyKey(feature: String, id: String) -> String? {
        guard needsEscaping(feature) else { return nil }
        let legacy = "\(feature)/\(id)"
        let prefix = legacy.prefix { $0 != "/" }
        return isEscapedFeature(prefix) ? nil : legacy
    }

    private static func needsEscaping(_ feature: String) -> Bool {
        feature.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") }
    }

    static func escape(_ feature: String) -> String {
        guard needsEscaping(feature) else { return feature }
        var escaped = ""
        for character in feature.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "/": escaped += "%2F"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Whether `text` is what ``escape(_:)`` makes of some feature: every `%` starts `%25` or `%2F`.
    private static func isEscapedFeature(_ text: Substring) -> Bool {
        var rest = text[...]
        while let percent = rest.firstIndex(of: "%") {
            let after = rest[rest.index(after: percent)...]
            guard after.hasPrefix("25") || after.hasPrefix("2F") else { return false }
            rest = after.dropFirst(2)
        }
        return true
    }
}
