import AppStateKitCore
import Foundation

/// Why reading or writing persisted state failed. Every message names the key or path involved.
///
/// The ``description`` is one line in the format every AppStateKit error shares,
/// `<kind> for <subject>: <detail>`, for example
/// `permission denied for /var/lib/app/defaults.json: stat failed (EACCES)`. AppStateKit reports
/// it through the logger as `AppStateKit: <description>`.
///
/// Its fields have the names the other error types use for the same things: ``kind``, ``key``,
/// ``path`` and ``detail``.
public struct PersistenceError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of failure it was.
    public let kind: Kind
    /// The key or path involved, as the description shows it: a path, `key "<key>" in <path>`,
    /// `key "<key>"`, or `FileState in <directory>`.
    public let subject: String
    /// The key-value store key involved (`"Server/port"`); empty when the failure concerns a
    /// file rather than one key.
    public let key: String
    /// The file or directory involved; `nil` when none is known (a key of an in-memory store).
    public let path: String?
    /// Details: what was attempted and what went wrong, in a few words.
    public let detail: String
    /// The `errno` of an ``Kind/ioFailure`` that a system call reported (`EIO`, `ELOOP`, …);
    /// `nil` for the other kinds, whose kind already says what happened.
    public let errno: Int32?

    /// Creates an error about `subject`; pass `errno` for an ``Kind/ioFailure`` a system call
    /// reported. ``path`` is `subject` when that is an absolute path; ``key`` is empty.
    public init(_ kind: Kind, errno: Int32? = nil, subject: String, detail: String) {
        self.init(kind, errno: errno, subject: subject, key: "", path: subject.hasPrefix("/") ? subject : nil, detail: detail)
    }

    /// Creates an error about the store key `key` (empty for none) in the file `path` (`nil`
    /// for none); the description's subject is `key "<key>" in <path>`, `key "<key>"` or the
    /// path. Pass `errno` for an ``Kind/ioFailure`` a system call reported.
    ///
    /// ```swift
    /// PersistenceError(.typeMismatch, key: "Server/port", path: "/srv/app/defaults.json", detail: "stored String, expected Int")
    /// ```
    public init(_ kind: Kind, errno: Int32? = nil, key: String, path: String?, detail: String) {
        let subject = switch (key.isEmpty, path) {
        case (false, let path?): "key \"\(key)\" in \(path)"
        case (false, nil): "key \"\(key)\""
        case (true, let path?): path
        case (true, nil): "an unnamed entry"
        }
        self.init(kind, errno: errno, subject: subject, key: key, path: path, detail: detail)
    }

    /// Every field given.
    init(_ kind: Kind, errno: Int32?, subject: String, key: String, path: String?, detail: String) {
        self.kind = kind
        self.errno = errno
        self.subject = subject
        self.key = key
        self.path = path
        self.detail = detail
    }

    /// Whether the two errors have the same kind, `errno`, subject and detail. ``key`` and
    /// ``path`` are not compared: they are parts of the subject, which an error created with
    /// ``init(_:errno:subject:detail:)`` names without taking them apart.
    public static func == (lhs: PersistenceError, rhs: PersistenceError) -> Bool {
        lhs.kind == rhs.kind && lhs.errno == rhs.errno && lhs.subject == rhs.subject && lhs.detail == rhs.detail
    }

    /// This error with `detail`, for code that adds to what went wrong.
    func with(detail: String) -> PersistenceError {
        PersistenceError(kind, errno: errno, subject: subject, key: key, path: path, detail: detail)
    }

    /// `<kind> for <subject>: <detail>`, `<kind>` followed by the symbolic ``errno`` if any.
    public var description: String {
        let what = errno.map { "\(kind) \(Self.errnoName($0))" } ?? kind.description
        return "\(what) for \(subject): \(detail)"
    }

    package static func system(_ code: Int32, subject: String, operation: String) -> PersistenceError {
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
    package static func naming<Result>(_ path: String, _ operation: () throws -> Result) rethrows -> Result {
        do {
            return try operation()
        } catch let error as FileSystemError {
            throw PersistenceError(error, path: path)
        }
    }

    /// The symbolic name of `code` (`EACCES`), or `errno <n>` for one the platform doesn't name.
    package static func errnoName(_ code: Int32) -> String {
        POSIXErrorCode(rawValue: code).map { "\($0)" } ?? "errno \(code)"
    }
}
