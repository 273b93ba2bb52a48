import AppStateKit

extension Application {
    /// The PostgreSQL password of fleet mode, read through the `\.keychain`: by default the
    /// systemd credential `$CREDENTIALS_DIRECTORY/dbPassword` (`LoadCredential=dbPassword:…`),
    /// then `/run/secrets/dbPassword`, then the variable `DB_PASSWORD`. Never printed: a
    /// misconfigured source is reported naming the file, not the password.
    public var databasePassword: SecureState { secureState(id: "dbPassword") }
}

/// The password `FlagServer` connects to PostgreSQL with: ``AppStateKit/Application/databasePassword``,
/// or `legacyVariable` (the `APPSTATEKIT_POSTGRES_PASSWORD` earlier versions read) when no source
/// has it; `nil` for a passwordless (trust) connection.
///
/// - Throws: `SecureStateError` naming the source when one can't be read (a directory where the
///   credential file should be, an unreadable file, invalid UTF-8): a server must not start
///   without the password it was given.
public func databasePassword(legacyVariable: String?) throws -> String? {
    try Application.secureState(\.databasePassword).read() ?? legacyVariable
}
