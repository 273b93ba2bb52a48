#if Configuration
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Configuration

/// How a provider names configuration keys in its store: `"<namespace>/<key>"`, the key's
/// components joined by dots (`http.rateLimit` in namespace `Configuration` is
/// `"Configuration/http.rateLimit"`).
///
/// It is the key an ``AppStateKit/Application/SyncState`` with feature `namespace` and id
/// `"http.rateLimit"` is stored under (escaped the same way when the key holds `/` or `%`), so
/// such a SyncState reads and writes the same setting.
struct ConfigNamespace: Sendable {
    /// The first part of every store key; no `/` or `%`.
    let name: String
    /// `"<name>/"`: every key of the namespace starts with it.
    let prefix: String

    /// The namespace `name`.
    ///
    /// - Throws: ``ConfigStoreError`` of kind ``ConfigStoreError/Kind/invalidNamespace`` when
    ///   `name` is empty or holds `/` or `%`: a namespace may come from configuration read at run
    ///   time, so the providers' throwing initialisers throw it rather than stop the process.
    init(_ name: String) throws(ConfigStoreError) {
        let problem: String? =
            if name.isEmpty { "it is empty" }
            else if name.contains("/") { "it contains \"/\"" }
            else if name.contains("%") { "it contains \"%\"" }
            else { nil }
        if let problem {
            throw ConfigStoreError(
                .invalidNamespace, key: name,
                detail: "\(problem); a namespace is the first part of every store key: use a non-empty name without \"/\" or \"%\", such as \"Configuration\""
            )
        }
        self.name = name
        self.prefix = name + "/"
    }

    /// The key's components joined by dots: the name secrets specifiers and writers use.
    static func dotted(_ key: AbsoluteConfigKey) -> String {
        key.components.joined(separator: ".")
    }

    /// The store key of `key`.
    func storeKey(_ key: AbsoluteConfigKey) -> String {
        SyncStoreKey.make(feature: name, id: Self.dotted(key))
    }

    /// Whether `storeKey` belongs to the namespace.
    func contains(_ storeKey: String) -> Bool {
        storeKey.hasPrefix(prefix)
    }
}
#endif
