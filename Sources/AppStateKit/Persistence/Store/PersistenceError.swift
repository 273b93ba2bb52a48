import Foundation

/// Why reading or writing persisted state failed. Every message names the key or path involved.
///
/// The ``description`` is one line, `<what> for <subject>: <detail>`, for example
/// `permission denied for /var/lib/app/defaults.json: stat failed (EACCES)`. AppStateKit reports
/// it through the logger as `AppStateKit: <description>`.
public struct PersistenceError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of failure it was.
    public let kind: Kind
    /// The key or path involved.
    public let subject: String
    /// Details: what was attempted and what went wrong, in a few words.
    public let detail: String
    /// The `errno` of an ``Kind/ioFailure`` that a system call reported (`EIO`, `ELOOP`, …);
    /// `nil` for the other kinds, whose kind already says what happened.
    public let errno: Int32?

    /// Creates an error; pass `errno` for an ``Kind/ioFailure`` a system call reported.
    public init(_ kind: Kind, errno: Int32? = nil, subject: String, detail: String) {
        self.kind = kind
        self.errno = errno
        self.subject = subject
        self.detail = detail
    }

    /// `<what> for <subject>: <detail>`, `<what>` being the kind and the symbolic ``errno`` if any.
    public var description: String {
        let what = errno.map { "\(kind) \(Self.errnoName($0))" } ?? kind.description
        return "\(what) for \(subject): \(detail)"
    }

    static func system(_ code: Int32, subject: String, operation: String) -> PersistenceError {
        let detail = "\(operation) failed (\(errnoName(code)))"
        return switch code {
        case EACCES, EPERM: PersistenceError(.permissionDenied, subject: subject, detail: detail)
        case EROFS: PersistenceError(.readOnlyFileSystem, subject: subject, detail: detail)
        case ENOSPC, EDQUOT: PersistenceError(.diskFull, subject: subject, detail: detail)
        case ENAMETOOLONG: PersistenceError(.invalidFilename, subject: subject, detail: detail)
        default: PersistenceError(.ioFailure, errno: code, subject: subject, detail: detail)
        }
    }

    init(_ error: FileSystemError, path: String) {
        self = .system(error.code, subject: path, operation: error.operation)
    }

    /// What `operation` returns; a ``FileSystemError`` it throws becomes the error naming `path`.
    static func naming<Result>(_ path: String, _ operation: () throws -> Result) rethrows -> Result {
        do {
            return try operation()
        } catch let error as FileSystemError {
            throw PersistenceError(error, path: path)
        }
    }

    /// The symbolic name of `code` (`EACCES`), or `errno <n>` for one the platform doesn't name.
    static func errnoName(_ code: Int32) -> String {
        POSIXErrorCode(rawValue: code).map { "\($0)" } ?? "errno \(code)"
    }
}
