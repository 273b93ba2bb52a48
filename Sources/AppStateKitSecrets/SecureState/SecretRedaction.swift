import AppStateKitCore
import AppStateKitPersistence
/// How a secret appears wherever AppStateKit prints something about it: descriptions, the
/// registry listing (`Application.description`), logs and errors show this text, never the value.
enum SecretRedaction {
    /// The stand-in for a value.
    static let placeholder = "<redacted>"

    /// The stand-in for a value, with its length in UTF-8 bytes: `<redacted, 12 bytes>`.
    static func describe(length: Int) -> String {
        "<redacted, \(length) bytes>"
    }
}
