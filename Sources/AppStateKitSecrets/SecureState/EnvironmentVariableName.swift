import AppStateKitCore
import AppStateKitPersistence
/// How the ``SecretSource/environment(prefix:)`` source names the variable of a key.
enum EnvironmentVariableName {
    /// `prefix` followed by `key` in upper snake case: an underscore before each uppercase
    /// letter that follows a lowercase letter or a digit, every character other than an ASCII
    /// letter or digit replaced by an underscore, and letters uppercased. `dbPassword` →
    /// `DB_PASSWORD`, `Billing.apiKey` → `BILLING_API_KEY`, `api-token` → `API_TOKEN`,
    /// `APIToken` → `APITOKEN`.
    static func name(forKey key: String, prefix: String) -> String {
        var name = prefix
        var previous: Unicode.Scalar?
        for scalar in key.unicodeScalars {
            let isUpper = ("A"..."Z").contains(scalar)
            let isLower = ("a"..."z").contains(scalar)
            let isDigit = ("0"..."9").contains(scalar)
            if isUpper, let previous, ("a"..."z").contains(previous) || ("0"..."9").contains(previous) {
                name += "_"
            }
            if isLower {
                name += String(scalar).uppercased()
            } else if isUpper || isDigit {
                name.unicodeScalars.append(scalar)
            } else {
                name += "_"
            }
            previous = scalar
        }
        return name
    }
}
