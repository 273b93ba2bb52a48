/// How a ``Application/StoredState``'s feature and id become its key in the store.
///
/// The key is `"<feature>/<id>"` with the feature escaped as ``KeyPartEscaping`` says, so no two
/// declarations share a key (unescaped, feature `T` with id `a/b` and feature `T/a` with id `b`
/// both made `T/a/b`); a plain feature is used as it is (`"App/port"`, as AppState wrote it).
///
/// Earlier versions stored an escaped feature's entry under the raw `"<feature>/<id>"`. That
/// legacy key is read as a fallback (while nothing is stored under the new key) only when it
/// can't be another declaration's key: when the text before its first `/` is not an escaped
/// feature.
enum StoredStateKey {
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
