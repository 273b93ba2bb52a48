/// How a ``Application/StoredState``'s feature and id become its key in the store.
///
/// The key is `"<feature>/<id>"` with the feature escaped, so that no two declarations share a
/// key (unescaped, feature `T` with id `a/b` and feature `T/a` with id `b` both made `T/a/b`):
///
/// - A feature without `/` and `%` is used as it is, so the key is byte-identical to what earlier
///   versions and AppState wrote (`"App/port"`).
/// - Otherwise it is escaped as ``KeyPartEscaping`` says (`"Settings%2FDisplay/theme"`): the
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
        "\(KeyPartEscaping.escape(feature))/\(id)"
    }

    /// The key earlier versions used, when it differs from ``key(feature:id:)`` and reading it
    /// can't return another declaration's value; otherwise `nil`.
    static func legacyKey(feature: String, id: String) -> String? {
        guard KeyPartEscaping.needsEscaping(feature) else { return nil }
        let legacy = "\(feature)/\(id)"
        let prefix = legacy.prefix { $0 != "/" }
        return KeyPartEscaping.isEscaped(prefix) ? nil : legacy
    }
}
