import AppStateKitCore
import AppStateKitPersistence
/// How a ``Application/SyncState`` declaration's `feature` and `id` become the key its value is
/// stored under in a ``SyncStore``.
///
/// - When neither part contains `/` or `%`, the key is the readable `"<feature>/<id>"`
///   (`"App/flags"`).
/// - Otherwise each part is escaped as ``KeyPartEscaping`` says before joining, so
///   feature `"T"` with id `"a/b"` is `"T/a%2Fb"` and feature `"T/a"` with id `"b"` is
///   `"T%2Fa/b"`.
///
/// Every key therefore holds exactly one unescaped `/`, and splitting there and unescaping
/// recovers the pair: two different declarations never share a key.
package enum SyncStoreKey {
    /// The store key for `feature` and `id`.
    package static func make(feature: String, id: String) -> String {
        if KeyPartEscaping.needsEscaping(feature) || KeyPartEscaping.needsEscaping(id) {
            return "\(KeyPartEscaping.escape(feature))/\(KeyPartEscaping.escape(id))"
        }
        return "\(feature)/\(id)"
    }
}
