import AppStateKitCore
import AppStateKitPersistence
/// The keychain keys of every ``Application/SecureState`` declared (first used) in this process,
/// in any application: the configuration providers treat a setting as a secret when a secure
/// state names it (feature `<namespace>` and id `db.password`, or id `db.password` alone),
/// without the caller listing it.
///
/// Process-wide on purpose: a key declared secret by one application is redacted for all, which
/// can only hide more, never show a secret.
package enum SecureStateDeclarations {
    private static let keys = LockedBox<Set<String>>([])

    /// Records the secure state of `feature` and `id`.
    static func declare(feature: String, id: String) {
        let key = SecretKey.key(feature: feature, id: id)
        _ = keys.withLock { $0.insert(key) }
    }

    /// Whether a secure state was declared for `id` under `feature`, or for `id` in the default
    /// feature (whose key is the id alone).
    package static func declares(feature: String, id: String) -> Bool {
        let scoped = SecretKey.key(feature: feature, id: id)
        return keys.withLock { $0.contains(scoped) || $0.contains(id) }
    }
}
