import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// The key a ``Application/SecureState`` keeps its secret under, and the rule every key
/// follows: it names a file in the credential and secrets directories and the writable store.
enum SecretKey {
    /// The key for `feature` and `id`: the id alone for the default feature `"App"` (so
    /// `secureState(id: "dbPassword")` reads `$CREDENTIALS_DIRECTORY/dbPassword`, as
    /// `LoadCredential=dbPassword:…` creates it), otherwise `<feature>.<id>`.
    static func key(feature: String, id: String) -> String {
        feature == "App" ? id : "\(feature).\(id)"
    }

    /// The longest key, in UTF-8 bytes: the longest file name (255 bytes) less what the writable
    /// store's temporary file adds to the key (``temporaryName(forKey:)``), so every key that
    /// passes can be written.
    static let maximumLength = 255 - temporaryNameOverhead

    /// What ``temporaryName(forKey:)`` adds to a key: `.`, `.tmp-` and a UUID.
    static let temporaryNameOverhead = 1 + temporaryMarker.utf8.count + 36

    /// What the writable store's temporary files have between the key and the UUID.
    static let temporaryMarker = ".tmp-"

    /// The name of a temporary file the writable store writes `key`'s new value to before it
    /// renames it into place: `.<key>.tmp-<UUID>`.
    static func temporaryName(forKey key: String) -> String {
        ".\(key)\(temporaryMarker)\(UUID().uuidString)"
    }

    /// Whether `name` is one of the writable store's temporary files.
    static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.utf8.count > temporaryNameOverhead,
              let marker = name.range(of: temporaryMarker, options: .backwards)
        else { return false }
        return UUID(uuidString: String(name[marker.upperBound...])) != nil
    }

    /// Why `key` can't name a file, or `nil` when it can: not empty, at most
    /// ``maximumLength`` bytes, no `/` or NUL, and not starting with `.` (the writable store's
    /// temporary files do).
    static func problem(_ key: String) -> String? {
        if key.isEmpty { return "it is empty" }
        if key.utf8.count > maximumLength {
            return "it is longer than \(maximumLength) bytes (the longest file name, 255 bytes, less \(temporaryNameOverhead) for the name of the file a write goes through)"
        }
        if key.hasPrefix(".") { return "it starts with \".\"" }
        if key.contains("/") { return "it contains \"/\"" }
        if key.utf8.contains(0) { return "it contains a NUL byte" }
        return nil
    }

    /// Throws ``SecureStateError/Kind/invalidKey`` when `key` can't name a file.
    static func validate(_ key: String) throws(SecureStateError) {
        if let problem = problem(key) {
            throw SecureStateError(.invalidKey, key: key, source: "", detail: "\(problem); a key names a file, so use letters, digits, \"-\", \"_\" and \".\"")
        }
    }
}
