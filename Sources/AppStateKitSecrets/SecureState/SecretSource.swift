import AppStateKitCore
import AppStateKitPersistence
/// One place a ``Keychain`` looks for secrets. A keychain asks its read-only sources in the order
/// given, then its writable ones; the first that has the key provides the value.
///
/// ```swift
/// // The default order (Keychain()):
/// Keychain(sources: [.credentialsDirectory(), .secretsDirectory(), .environment(), .fileStore()])
/// // A server that takes secrets only from systemd and a mounted volume:
/// Keychain(sources: [.credentialsDirectory(), .secretsDirectory("/etc/app/secrets")])
/// ```
///
/// In the credential and secrets directories a secret is the file named by its key: `dbPassword`
/// for `secureState(id: "dbPassword")` (feature `"App"`), `Billing.apiKey` for
/// `secureState(feature: "Billing", id: "apiKey")`. One trailing newline is removed, as
/// `echo secret > file` and `LoadCredential=` files end with one.
public struct SecretSource: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Hashable {
        /// `nil`: `$CREDENTIALS_DIRECTORY`, skipped when the variable is unset or empty.
        case credentialsDirectory(String?)
        case secretsDirectory(String)
        case environment(prefix: String)
        /// `nil`: `$XDG_CONFIG_HOME/<storage name>/secrets` (or `~/.config/<storage name>/secrets`).
        case fileStore(String?)
        case memory
    }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// systemd credentials: the file `<directory>/<key>`; by default the directory systemd
    /// names in `$CREDENTIALS_DIRECTORY` for a unit with `LoadCredential=` or `SetCredential=`
    /// (skipped when that variable is unset). Read-only.
    public static func credentialsDirectory(_ directory: String? = nil) -> SecretSource {
        SecretSource(.credentialsDirectory(directory))
    }

    /// A directory of secret files, one per key: Docker and Compose secrets and Kubernetes
    /// secret volumes (`/run/secrets` by default). Read-only.
    public static func secretsDirectory(_ directory: String = "/run/secrets") -> SecretSource {
        SecretSource(.secretsDirectory(directory))
    }

    /// Environment variables: the key in upper snake case after `prefix` (see
    /// ``Keychain/environmentVariableName(forKey:prefix:)``): `dbPassword` is `DB_PASSWORD`,
    /// `Billing.apiKey` is `BILLING_API_KEY`, and with prefix `"TODO_"`, `apiToken` is
    /// `TODO_API_TOKEN`. Values are used as they are (no newline is removed). Read-only.
    public static func environment(prefix: String = "") -> SecretSource {
        SecretSource(.environment(prefix: prefix))
    }

    /// The writable store: one file per key, mode `0600`, in a `0700` directory — by default
    /// `$XDG_CONFIG_HOME/<storage name>/secrets`, or `~/.config/<storage name>/secrets` (see
    /// `Application.storageName`). Written atomically and durably; files or a directory that
    /// other users can access are refused. Protected by file permissions only, not encrypted.
    public static func fileStore(directory: String? = nil) -> SecretSource {
        SecretSource(.fileStore(directory))
    }

    /// A writable store in this process's memory, empty at first: for tests and previews.
    public static var memory: SecretSource {
        SecretSource(.memory)
    }

    /// Whether the keychain can write to this source.
    public var isWritable: Bool {
        switch storage {
        case .fileStore, .memory: true
        case .credentialsDirectory, .secretsDirectory, .environment: false
        }
    }

    /// The source as its constructor spells it: `.secretsDirectory("/run/secrets")`.
    public var description: String {
        switch storage {
        case let .credentialsDirectory(directory?): ".credentialsDirectory(\"\(directory)\")"
        case .credentialsDirectory(nil): ".credentialsDirectory()"
        case let .secretsDirectory(directory): ".secretsDirectory(\"\(directory)\")"
        case let .environment(prefix): prefix.isEmpty ? ".environment()" : ".environment(prefix: \"\(prefix)\")"
        case let .fileStore(directory?): ".fileStore(directory: \"\(directory)\")"
        case .fileStore(nil): ".fileStore()"
        case .memory: ".memory"
        }
    }

    /// The default order: systemd credentials, `/run/secrets`, environment variables, then the
    /// writable file store.
    public static let defaultSources: [SecretSource] = [.credentialsDirectory(), .secretsDirectory(), .environment(), .fileStore()]
}
