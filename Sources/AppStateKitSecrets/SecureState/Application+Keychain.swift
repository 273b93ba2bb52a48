import AppStateKitCore
import AppStateKitPersistence
extension Application {
    /// The keychain ``SecureState`` values come from: by default ``Keychain/init()`` (systemd
    /// credentials, `/run/secrets`, environment variables, then `0600` files under
    /// `~/.config/<storage name>/secrets`).
    ///
    /// Override or promote it like any dependency, in tests with an in-memory keychain:
    ///
    /// ```swift
    /// Application.override(\.keychain, with: Keychain(initialValues: ["apiToken": "test-token"]))
    /// ```
    ///
    /// An isolated application gets its own keychain over its sandbox directory, with an empty
    /// environment: it never reads the real `/run/secrets`, `$CREDENTIALS_DIRECTORY`, the
    /// process's environment variables or the real home directory, and what it writes is
    /// removed with the sandbox.
    public var keychain: Dependency<Keychain> {
        dependency(key: Application.keychainKey) { Keychain() }
    }

    /// The key of ``keychain``.
    static var keychainKey: EntryKey {
        EntryKey(kind: .dependency, valueType: Keychain.self, name: EntryName(feature: "AppStateKit", id: "keychain"))
    }

    /// Gives `application` (a new isolated one) a keychain over `files` (its sandbox) with an
    /// empty environment, without running the default keychain's factory.
    package static func installIsolatedKeychain(in application: Application, files: SandboxFileManager) {
        let key = keychainKey
        let keychain = Keychain(
            sources: SecretSource.defaultSources, keys: [], environment: .given([:]), files: .of(files),
            storageName: { StorageName.current }, sizeLimit: Keychain.defaultSizeLimit
        )
        _ = application.registry.entry(for: key) { DependencyEntry<Keychain>(key: key, value: keychain) }
    }
}
