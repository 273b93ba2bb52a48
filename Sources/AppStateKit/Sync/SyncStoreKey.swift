/// How a ``Application/SyncState`` declaration's `feature` and `id` become the key its value is
/// stored under in a ``SyncStore``.
///
/// - When neither part contains `/` or `%`, the key is the readable `"<feature>/<id>"`
///   (`"App/flags"`).
/// - Otherwise each part is escaped (`%` becomes `%25`, `/` becomes `%2F`) before joining, so
///   feature `"T"` with id `"a/b"` is `"T/a%2Fb"` and feature `"T/a"` with id `"b"` is
///   `"T%2Fa/b"`.
///
/// Every key therefore holds exactly one unescaped `/`, and splitting there and unescaping
/// recovers the pair: two different declarations never share a key.
package enum SyncStoreKey {
    /// The store key for `feature` and `id`.
    package static func make(feature: String, id: String) -> String {
        if needsEscaping(feature) || needsEscaping(id) {
            return "\(escape(feature))/\(escape(id))"
        }
        return "\(feature)/\(id)"
    }

    private static func needsEscaping(_ part: String) -> Bool {
        part.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") }
    }

    private static func escape(_ part: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(part.utf8.count)
        for character in part.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "/": escaped += "%2F"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
