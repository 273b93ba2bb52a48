import Foundation
import AppStateKit
import AppStateKitTesting

extension Application {
    /// Feature "App": the keychain key is the id alone.
    var testPassword: SecureState { secureState(id: "dbPassword") }
    /// Another feature: the key is `Billing.apiKey`.
    var billingKey: SecureState { secureState(feature: "Billing", id: "apiKey") }
    /// A secret with an initial value.
    var greetingToken: SecureState { secureState(initial: "anonymous", feature: "Tests", id: "greeting") }
}

/// A keychain over `files` with every default source: credentials in `/creds`, secrets in
/// `/run/secrets`, `environment`, and the writable store in `/home/me/.config/app/secrets`.
func testKeychain(
    _ files: InMemoryFileSystem,
    environment: [String: String] = ["CREDENTIALS_DIRECTORY": "/creds"],
    sizeLimit: Int = Keychain.defaultSizeLimit
) -> Keychain {
    Keychain(
        sources: [.credentialsDirectory(), .secretsDirectory(), .environment(), .fileStore(directory: storeDirectory)],
        environment: environment, fileManager: files, sizeLimit: sizeLimit
    )
}

/// The writable store's directory in ``testKeychain(_:environment:sizeLimit:)``.
let storeDirectory = "/home/me/.config/app/secrets"

/// Makes `keychain` the current (isolated) application's `\.keychain`.
func useKeychain(_ keychain: Keychain) {
    Application.promote(\.keychain, with: keychain)
}
