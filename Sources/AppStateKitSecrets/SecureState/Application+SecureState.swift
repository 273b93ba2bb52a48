import AppStateKitCore
import AppStateKitPersistence
extension Application {
    /// A handle to a secret: AppState's `SecureState`, read from systemd credentials, a secrets
    /// directory, the environment or a private file store through the `\.keychain` dependency.
    ///
    /// ```swift
    /// extension Application {
    ///     var dbPassword: SecureState { secureState(id: "dbPassword") }
    ///     var apiToken: SecureState { secureState(feature: "Todo", id: "apiToken") }
    /// }
    ///
    /// let password = Application.secureState(\.dbPassword).value   // $CREDENTIALS_DIRECTORY/dbPassword, …
    /// var token = Application.secureState(\.apiToken)
    /// token.value = "t0k3n"                                         // ~/.config/<name>/secrets/Todo.apiToken
    /// ```
    ///
    /// The keychain key is the `id` for the default feature `"App"` and `<feature>.<id>` for any
    /// other (see ``Keychain``). Reads ask the keychain every time and return the initial value
    /// when no source has the secret; a source that can't be read is reported through the logger
    /// (the value then reads as the initial value) and thrown by ``read()``. Assigning stores the
    /// value in the keychain's writable store, `nil` removes it; a refused write (a read-only
    /// source provides the key) is reported, and thrown by ``write(_:)``.
    ///
    /// The value never appears in the handle's description, in `Application.description`, in
    /// logs or in errors: they show `<redacted>` and the key.
    public struct SecureState: MutableApplicationState, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// The registry entry.
        let entry: SecureStateEntry
        /// Keeps the owning application (and its registry) alive as long as the handle.
        let application: KeepAlive

        /// The secret, or the initial value when no source has it. Setting stores it in the
        /// keychain's writable store; `nil` removes it.
        public var value: String? {
            get { entry.value }
            set { entry.assign(newValue) }
        }

        /// Removes the stored secret from the writable store, so reads return the initial value
        /// (unless a read-only source provides the key: then the removal is refused and reported;
        /// `write(nil)` throws it instead). The entry stays in the application:
        /// ``Application/remove(state:)`` drops the in-memory entry and keeps the secret.
        public func reset() {
            entry.assign(nil)
        }

        /// Reads the secret, throwing instead of reporting when a source can't be read.
        ///
        /// - Throws: ``SecureStateError`` naming the key and the source.
        public func read() throws(SecureStateError) -> String? {
            try entry.read()
        }

        /// Stores `newValue` (`nil` removes it), throwing instead of reporting.
        ///
        /// - Throws: ``SecureStateError``: ``SecureStateError/Kind/providedByReadOnlySource``
        ///   when a read-only source provides the key, or why the store refused the write.
        public func write(_ newValue: String?) throws(SecureStateError) {
            try entry.write(newValue)
        }

        /// Where the secret comes from, in words (`the environment variable DB_PASSWORD`), or
        /// `nil` when no source has it.
        public func origin() throws(SecureStateError) -> String? {
            let entry = entry
            return try entry.keychain.origin(of: entry.secretKey)
        }

        /// The key the keychain keeps the secret under: `dbPassword`, `Billing.apiKey`.
        public var key: String { entry.secretKey }

        /// The entry's identity as AppState exposes it.
        public var scope: Scope { entry.key.name.scope }

        /// `SecureState(<key>) = <redacted>`: never the value.
        public var description: String { "SecureState(\(key)) = \(SecretRedaction.placeholder)" }

        /// The same as ``description``.
        public var debugDescription: String { description }

        /// The key only, so `dump` and debuggers never show the value.
        public var customMirror: Mirror {
            Mirror(self, children: ["key": key, "value": SecretRedaction.placeholder], displayStyle: .struct)
        }
    }

    /// Declares a secret named by `feature` and `id`, with `initial` returned while no source has
    /// it.
    ///
    /// ```swift
    /// extension Application {
    ///     var apiURLToken: SecureState { secureState(initial: "anonymous", id: "apiURLToken") }
    /// }
    /// ```
    public func secureState(
        initial: @escaping @autoclosure () -> String?,
        feature: String = "App",
        id: String
    ) -> SecureState {
        let entry = registry.entry(for: EntryKey(kind: .secureState, valueType: String?.self, feature: feature, id: id), as: SecureStateEntry.self) {
            SecureStateDeclarations.declare(feature: feature, id: id)
            return Application.announcingCreation(SecureStateEntry(key: $0, feature: feature, id: id, initial: initial(), owner: EntryOwner(self)))
        }
        return SecureState(entry: entry, application: KeepAlive(self))
    }

    /// Declares a secret named by `feature` and `id`; `nil` while no source has it.
    public func secureState(feature: String = "App", id: String) -> SecureState {
        secureState(initial: nil, feature: feature, id: id)
    }

    /// Returns the handle of a secure state.
    public static func secureState(_ keyPath: KeyPath<Application, SecureState>) -> SecureState {
        withCurrent { $0[keyPath: keyPath] }
    }

    /// Removes a secure state's stored secret, so it reads as its initial value again (see
    /// ``SecureState/reset()``).
    public static func reset(secureState keyPath: KeyPath<Application, SecureState>) {
        current[keyPath: keyPath].reset()
    }
}

/// A SecureState is a registry entry like the others: ``Application/remove(state:)`` removes it
/// (the secret stays in its source) and ``Application/values(of:pollInterval:)`` follows it.
extension Application.SecureState: EntryBacked {
    package var registryEntry: RegistryEntry { entry }
}
