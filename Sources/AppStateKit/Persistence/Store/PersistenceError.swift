import Foundation

/// Why reading or writing persisted state failed. Every message names the key or path involved.
public struct PersistenceError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of failure it was.
    public enum Kind: Sendable, Equatable {
        /// The file or directory may not be read or written (`EACCES`, `EPERM`).
        case permissionDenied
        /// The file system is read-only (`EROFS`).
        case readOnlyFileSystem
        /// No space left on the device (`ENOSPC`, `EDQUOT`).
        case diskFull
        /// The stored bytes are not in the expected format.
        case corruptData
        /// A value is stored, but not of the type the state declares.
        case typeMismatch
        /// The value cannot be encoded for storage.
        case encodingFailed
        /// A file name that is not a single path component.
        case invalidFilename
        /// Any other I/O failure, with its `errno`.
        case ioFailure(errno: Int32)
    }

    /// What kind of failure it was.
    public let kind: Kind
    /// The key or path involved.
    public let subject: String
    /// Details: the underlying error or system message.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, subject: String, detail: String) {
        self.kind = kind
        self.subject = subject
        self.detail = detail
    }

    /// One line naming the failure, its subject and the detail.
    public var description: String {
        let what: String = switch kind {
        case .permissionDenied: "permission denied"
        case .readOnlyFileSystem: "read-only file system"
        case .diskFull: "disk full"
        case .corruptData: "corrupt data"
        case .typeMismatch: "type mismatch"
        case .encodingFailed: "cannot encode value"
        case .invalidFilename: "invalid file name"
        case let .ioFailure(code): "I/O error \(code)"
        }
        return "AppStateKit: \(what) for \(subject): \(detail)"
    }

    /// Maps an `errno` from a failed system call on `subject`.
    static func system(_ code: Int32, subject: String, operation: String) -> PersistenceError {
        let message = String(cString: strerror(code))
        let kind: Kind = switch code {
        case EACCES, EPERM: .permissionDenied
        case EROFS: .readOnlyFileSystem
        case ENOSPC, EDQUOT: .diskFull
        default: .ioFailure(errno: code)
        }
        return PersistenceError(kind, subject: subject, detail: "\(operation): \(message)")
    }
}
