import AppStateKitCore
/// How a declaration's `feature` or `id` is escaped before it is joined into a store key
/// (`"<feature>/<id>"`), for StoredState and SyncState alike: `%` becomes `%25` and `/` becomes
/// `%2F`, so an escaped part holds no `/`. A part holding neither is used as it is, so plain keys
/// stay readable and byte-identical to what earlier versions wrote (`"App/port"`).
package enum KeyPartEscaping {
    package static func needsEscaping(_ part: String) -> Bool {
        part.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") }
    }

    /// `part` escaped; `part` itself when it needs no escaping.
    package static func escape(_ part: String) -> String {
        guard needsEscaping(part) else { return part }
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

    /// Whether `text` is what ``escape(_:)`` makes of some part: every `%` starts `%25` or `%2F`.
    static func isEscaped(_ text: Substring) -> Bool {
        var rest = text[...]
        while let percent = rest.firstIndex(of: "%") {
            let after = rest[rest.index(after: percent)...]
            guard after.hasPrefix("25") || after.hasPrefix("2F") else { return false }
            rest = after.dropFirst(2)
        }
        return true
    }
}
