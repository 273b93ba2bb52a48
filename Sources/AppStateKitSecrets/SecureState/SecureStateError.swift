import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// Why a secret could not be read or written. The message names the key and the source (a file's
/// path, an environment variable's name), never the secret's value.
///
/// The ``description`` is one line in the format every AppStateKit error shares, `<kind> for
/// <subject>: <detail>` — here `<kind> for secret "<key>" in <source>: <detail>` — for
/// example `insecure permissions for secret "apiToken" in the secret store file
/// /home/me/.config/todo/secrets/apiToken: mode 0644 lets other users read it; run chmod 600 …`.
/// AppStateKit reports it through the logger as `AppStateKit: <description>`.
///
/// ``Kind`` is a struct, so kinds added later break no `switch`: compare with `==`. The fields
/// have the names the other error types use for the same things: ``kind``, ``key``, ``path``
/// and ``detail``.
public struct SecureStateError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What went wrong.
    public let kind: Kind
    /// The key of the secret (a file name such as `dbPassword` or `Billing.apiKey`).
    public let key: String
    /// Where AppStateKit looked or wrote: `the systemd credential file /run/credentials/app.service/dbPassword`,
    /// `the environment variable DB_PASSWORD`, … (empty when no source is involved).
    public let source: String
    /// Details in a few words: what was attempted and how to fix it.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, key: String, source: String, detail: String) {
        self.kind = kind
        self.key = key
        self.source = source
        self.detail = detail
    }

    /// The file or directory of ``source`` (`/run/credentials/app.service/dbPassword`), `nil`
    /// when the source is no file (an environment variable, the keychain's memory, none).
    public var path: String? {
        for prefix in Self.fileSourcePrefixes where source.hasPrefix(prefix) {
            return String(source.dropFirst(prefix.count))
        }
        return nil
    }

    /// How the sources that are files or directories begin; the path follows.
    static let fileSourcePrefixes = [
        "the systemd credential file ", "the secret file ", "the secret store file ", "the secret store directory ", "the directory ",
    ]

    /// One line naming the kind, the key, the source and the details.
    public var description: String {
        let location = source.isEmpty ? "" : " in \(source)"
        return "\(kind) for secret \"\(key)\"\(location): \(detail)"
    }

    /// The kinds of failure.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// A read-only source (systemd credentials, the secrets directory, the environment)
        /// provides the key, so writing or removing it in the writable store is refused: the
        /// written value would never be read.
        public static let providedByReadOnlySource = Kind("provided by a read-only source")
        /// There is a directory where the secret's file should be.
        public static let isDirectory = Kind("a directory instead of a file")
        /// The file exists but can't be read (or written): permissions, I/O errors.
        public static let unreadable = Kind("unreadable")
        /// The file is not a regular file: a symbolic link in the writable store (never
        /// followed), a FIFO, a socket or a device. It is not read, so a read never waits.
        public static let notRegularFile = Kind("not a regular file")
        /// The file or variable does not hold valid UTF-8 text.
        public static let invalidUTF8 = Kind("invalid UTF-8")
        /// The value is larger than the keychain's size limit.
        public static let tooLarge = Kind("too large")
        /// A file of the writable store, or its directory, can be read or written by other users,
        /// or belongs to another user than the process's effective user.
        public static let insecurePermissions = Kind("insecure permissions")
        /// The keychain has no writable source to store the value in.
        public static let noWritableSource = Kind("no writable source")
        /// The writable store could not write or remove the file.
        public static let writeFailed = Kind("write failed")
        /// The key can't name a file (empty, `.`-prefixed, containing `/` or NUL).
        public static let invalidKey = Kind("invalid key")
        /// No source provides a key that was required (``Keychain/resolve(_:as:)``,
        /// ``Keychain/require(keys:)``).
        public static let missing = Kind("missing")

        /// The kind in a few words.
        public var description: String { name }
    }
}

extension SecureStateError: LocalizedError {
    /// The ``description``, so `localizedDescription` names the key and source too.
    public var errorDescription: String? { description }
}

extension SecureStateError {
    /// `error`, a failed file operation on `path` while reading or writing `key` in `source`.
    static func fileSystem(
        _ error: FileSystemError, kind: Kind, key: String, source: String
    ) -> SecureStateError {
        SecureStateError(kind, key: key, source: source, detail: "\(error.operation) failed (\(PersistenceError.errnoName(error.code)))")
    }
}
