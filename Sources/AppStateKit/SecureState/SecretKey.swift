/// The key a ``Application/SecureState`` keeps its secret under, and the rule every key
/// follows: it names a file in the credential and secrets directories and the writable store.
enum SecretKey {
    /// The key for `feature` and `id`: the id alone for the default feature `"App"` (so
    /// `secureState(id: "dbPassword")` reads `$CREDENTIALS_DIRECTORY/dbPassword`, as
    /// `LoadCredential=dbPassword:…` creates it), otherwise `<feature>.<id>`.
    static func key(feature: String, id: String) -> String {
        feature == "App" ? id : "\(feature).\(id)"
    }

    /// Why `key` can't name a file, or `nil` when it can: not empty, at most 255 bytes, no `/`
    /// or NUL, and not starting with `.` (the writable store's temporary files do).
    static func problem(_ key: String) -> String? {
        if key.isEmpty { return "it is empty" }
        if key.utf8.count > 255 { return "it is longer than 255 bytes, the longest file name" }
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
