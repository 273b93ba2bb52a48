import AppStateKitCore
import AppStateKitPersistence
import Foundation

extension Keychain {
    /// The keys the sources can list, sorted: the files in the credential and secrets
    /// directories and in the writable store, the memory store's keys, and the keys given at
    /// creation or written through this keychain. Environment variables can't be mapped back to
    /// keys, so a secret only the environment holds is listed only when its key was given.
    /// Never reads a value.
    ///
    /// ```swift
    /// for key in try Keychain().listedKeys() { print(key, try Keychain().origin(of: key) ?? "-") }
    /// ```
    ///
    /// - Throws: ``SecureStateError`` naming the directory that can't be listed.
    public func listedKeys() throws(SecureStateError) -> [Key] {
        try allKeys().sorted()
    }
}

extension SecretSource {
    /// The directory ``fileStore(directory:)`` uses when it names none, for this process:
    /// `$XDG_CONFIG_HOME/<storage name>/secrets` (an absolute `XDG_CONFIG_HOME` only), else
    /// `~/.config/<storage name>/secrets`, `<storage name>` being `Application.storageName`
    /// (reading this fixes the name, as a default location does).
    public static var defaultFileStoreDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        return ResolvedSecretSource.defaultStoreDirectory(
            configHome: environment["XDG_CONFIG_HOME"], home: environment["HOME"], storageName: StorageName.resolvedForDefaultLocation()
        )
    }
}
