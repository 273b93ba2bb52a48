import AppStateKitCore
/// How a ``Application/StoredState``'s feature and id become its key in the store:
/// `"<feature>/<id>"` with the feature escaped (``KeyPartEscaping``), so no two declarations
/// share a key (unescaped, `T` + `a/b` and `T/a` + `b` both made `T/a/b`).
///
/// Earlier versions stored an escaped feature's entry under the raw `"<feature>/<id>"`. That
/// legacy key is read while nothing is stored under the new one, only when it can't be another
/// declaration's key (the text before its first `/` is not an escaped feature).
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
