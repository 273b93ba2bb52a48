/// How `FlagServer` protects its connection to PostgreSQL in fleet mode.
public enum DatabaseTLSMode: Sendable, Equatable {
    /// TLS required, the server's certificate verified against the system's trust store, or
    /// against the certificate file `trusting` names (`APPSTATEKIT_POSTGRES_TLS_CA`).
    case required(trusting: String?)
    /// No TLS: only for a host on this machine (loopback or a Unix socket), or when
    /// `APPSTATEKIT_POSTGRES_TLS=disable` says so for local development.
    case disabled
}

/// Why a TLS setting was refused.
public struct DatabaseTLSSettingError: Error, CustomStringConvertible {
    /// What is wrong and which values work.
    public let description: String
}

/// The TLS mode for `host`: required for any host other than loopback (`localhost`,
/// `127.0.0.0/8`, `::1`) or a Unix socket folder (a path), where it is off. The variable
/// `APPSTATEKIT_POSTGRES_TLS` (`setting`) overrides that: `require` (also for loopback),
/// `disable` (also for a remote host: the password then crosses the network in clear text, for
/// local development only) or `auto` (the default). `certificate` is
/// `APPSTATEKIT_POSTGRES_TLS_CA`, a PEM file to verify the server against.
///
/// - Throws: ``DatabaseTLSSettingError`` for another value of `setting`.
public func databaseTLSMode(host: String, setting: String?, certificate: String?) throws -> DatabaseTLSMode {
    switch setting ?? "auto" {
    case "require":
        return .required(trusting: certificate)
    case "disable":
        return .disabled
    case "auto", "":
        return isLocalDatabaseHost(host) ? .disabled : .required(trusting: certificate)
    case let other:
        throw DatabaseTLSSettingError(description: "APPSTATEKIT_POSTGRES_TLS is \"\(other.prefix(40))\"; use auto (the default: required unless the host is loopback or a Unix socket), require or disable")
    }
}

/// Whether `host` is this machine: a Unix socket folder, `localhost`, `127.0.0.0/8` or `::1`.
public func isLocalDatabaseHost(_ host: String) -> Bool {
    if host.hasPrefix("/") || host == "localhost" || host == "::1" || host == "[::1]" { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] == "127" else { return false }
    return parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
}
