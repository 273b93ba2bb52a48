import Foundation

/// Why reading or writing persisted state failed. Every message names the key or path involved.
///
/// The ``description`` is one line, `<what> for <subject>: <detail>`, for example
/// `permission denied for /var/lib/app/defaults.json: stat failed (EACCES)`. AppStateKit reports
/// it through the logger as `AppStateKit: <description>`.
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
        /// A file name that is not a single path component, or longer than 255 bytes.
        case invalidFilename
        /// Any other I/O failure, with its `errno`.
        case ioFailure(errno: Int32)
    }

    /// What kind of failure it was.
    public let kind: Kind
    /// The key or path involved.
    public let subject: String
    /// Details: what was attempted and what went wrong, in a few words.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, subject: String, detail: String) {
        self.kind = kind
        self.subject = subject
        self.detail = detail
    }

    /// One line: `<what> for <subject>: <detail>`.
    public var description: String {
        let what: String = switch kind {
        case .permissionDenied: "permission denied"
        case .readOnlyFileSystem: "read-only file system"
        case .diskFull: "disk full"
        case .corruptData: "corrupt data"
        case .typeMismatch: "type mismatch"
        case .encodingFailed: "cannot encode value"
        case .invalidFilename: "invalid file name"
        case let .ioFailure(code): "I/O error \(Self.errnoName(code))"
        }
        return "\(what) for \(subject): \(detail)"
    }

    /// Maps an `errno` from a failed system call on `subject`.
    static func system(_ code: Int32, subject: String, operation: String) -> PersistenceError {
        let kind: Kind = switch code {
        case EACCES, EPERM: .permissionDenied
        case EROFS: .readOnlyFileSystem
        case ENOSPC, EDQUOT: .diskFull
        case ENAMETOOLONG: .invalidFilename
        default: .ioFailure(errno: code)
        }
        return PersistenceError(kind, subject: subject, detail: "\(operation) failed (\(errnoName(code)))")
    }

    /// Maps a failed file-system operation on `path`.
    init(_ error: FileSystemError, path: String) {
        self = .system(error.code, subject: path, operation: error.operation)
    }

    /// The symbolic name of `code` (`EACCES`), or `errno <n>` for a rare one.
    static func errnoName(_ code: Int32) -> String {
        switch code {
        case EPERM: "EPERM"
        case ENOENT: "ENOENT"
        case EIO: "EIO"
        case EBADF: "EBADF"
        case EAGAIN: "EAGAIN"
        case ENOMEM: "ENOMEM"
        case EACCES: "EACCES"
        case EBUSY: "EBUSY"
        case EEXIST: "EEXIST"
        case EXDEV: "EXDEV"
        case ENOTDIR: "ENOTDIR"
        case EISDIR: "EISDIR"
        case EINVAL: "EINVAL"
        case EMFILE: "EMFILE"
        case ENFILE: "ENFILE"
        case EFBIG: "EFBIG"
        case ENOSPC: "ENOSPC"
        case EROFS: "EROFS"
        case EMLINK: "EMLINK"
        case ENAMETOOLONG: "ENAMETOOLONG"
        case ENOLCK: "ENOLCK"
        case ENOSYS: "ENOSYS"
        case ENOTEMPTY: "ENOTEMPTY"
        case ELOOP: "ELOOP"
        case EDQUOT: "EDQUOT"
        case ESTALE: "ESTALE"
        case EOPNOTSUPP: "EOPNOTSUPP"
        default: "errno \(code)"
        }
    }
}
