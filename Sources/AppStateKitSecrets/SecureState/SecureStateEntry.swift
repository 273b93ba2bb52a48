import AppStateKitCore
import AppStateKitPersistence
/// The registry entry behind an ``Application/SecureState``: its keychain key, its initial value
/// and the application that owns it. The value itself always lives in the owner's `\.keychain`,
/// which is asked on every read.
///
/// The entry never prints its value: its line in `Application.description` and every message
/// it reports show `<redacted>` and the key.
package final class SecureStateEntry: RegistryEntry, CustomReflectable {
    package let core: EntryCore
    let secretKey: String
    let initial: String?
    let owner: EntryOwner
    /// The last failure reported, so one repeated on every read is reported once.
    private let reports = FailureReports()

    init(key: EntryKey, feature: String, id: String, initial: String?, owner: EntryOwner) {
        core = EntryCore(key: key)
        self.secretKey = SecretKey.key(feature: feature, id: id)
        self.initial = initial
        self.owner = owner
    }

    @usableFromInline package var kindName: String { "SecureState" }

    /// The key only: neither the initial value nor a reported message.
    package var customMirror: Mirror {
        Mirror(self, children: ["key": secretKey, "value": SecretRedaction.placeholder], displayStyle: .class)
    }
    @usableFromInline package var valueTypeName: String { reflectedTypeName(String?.self) }
    @usableFromInline package var valueDescription: String { SecretRedaction.placeholder }

    /// The owning application's keychain.
    var keychain: Keychain {
        owner.dependency(\.keychain, for: "SecureState \(secretKey)")
    }

    /// The stored secret, or the initial value when no source has one.
    @usableFromInline func read() throws(SecureStateError) -> String? {
        trackAccess()
        return try keychain.read(secretKey) ?? initial
    }

    /// The value, or the initial value after reporting why the stored one can't be used.
    var value: String? {
        do {
            let value = try read()
            reports.readSucceeded()
            return value
        } catch {
            report(error)
            return initial
        }
    }

    /// Stores `newValue`; `nil` removes the stored secret.
    func write(_ newValue: String?) throws(SecureStateError) {
        let keychain = keychain
        willChange()
        defer { didChange() }
        if let newValue {
            try keychain.write(newValue, forKey: secretKey)
        } else {
            try keychain.delete(secretKey)
        }
    }

    /// ``write(_:)``, reporting a failure.
    func assign(_ newValue: String?) {
        do {
            try write(newValue)
        } catch {
            report(error)
        }
    }

    /// Reports `error` through the owner's logger, once per distinct message in a row.
    func report(_ error: SecureStateError) {
        reports.report(message: "AppStateKit: SecureState \(key.readable): \(error)", to: owner)
    }
}
