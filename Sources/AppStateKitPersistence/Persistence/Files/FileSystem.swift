import AppStateKitCore
import Foundation

/// The POSIX operations of AppStateKit's persistence layer, the one seam through which
/// everything reaches the disk: ``POSIXFileSystem``, or `AppStateKitTesting`'s
/// `InMemoryFileSystem`, which fails any operation with any `errno` on request (a `target`
/// parameter names the file an operation serves, only to match injected failures).
///
/// Only "absent" (`ENOENT`, `ENOTDIR`) is `nil`; every other failure throws its `errno`.
package protocol FileSystem: Sendable {
    /// `stat(2)`, following symbolic links.
    func status(of path: String) throws(FileSystemError) -> FileStatus?

    /// `readlink(2)`; `nil` also when `path` is not a symbolic link.
    func linkTarget(of path: String) throws(FileSystemError) -> String?

    /// The bytes of the file at `path` from `offset` on (at most `limit`), read through one
    /// descriptor with that file's stamp; fewer bytes than asked for is not an error.
    func contents(of path: String, from offset: Int, limit: Int?, for target: String) throws(FileSystemError) -> (data: Data, stamp: FileStamp)?

    /// Writes `data` into the existing file `path` at offset `length`, first cutting off whatever
    /// the file holds past `length` (the torn tail of an append a crash interrupted); `fsync`s it
    /// when `durable`. On failure the file is cut back to `length`, as far as possible. Returns
    /// the file's stamp after the write.
    func append(_ data: Data, to path: String, after length: Int, durable: Bool, for target: String) throws(FileSystemError) -> FileStamp

    /// Creates the new file `path` (`O_EXCL`, mode `0600`) holding `contents`, dated after
    /// `previous`, `fsync`ed when `durable`; removed again on failure. Returns its stamp.
    func createFile(
        _ path: String, contents: Data, datedAfter previous: FileStamp?, durable: Bool, replacing target: String
    ) throws(FileSystemError) -> FileStamp

    func rename(_ source: String, to destination: String) throws(FileSystemError)

    /// `link(2)`: fails with `EEXIST` when `destination` exists.
    func link(_ source: String, to destination: String) throws(FileSystemError)

    func remove(_ path: String) throws(FileSystemError)

    /// `mkdir(2)` with mode `0700`.
    func makeDirectory(_ path: String) throws(FileSystemError)

    /// `fsync(2)` of the directory, so its new entries and renames reach the disk.
    func synchronizeDirectory(_ path: String) throws(FileSystemError)

    /// Without `.` and `..`.
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String]

    /// Runs `body` holding an exclusive `flock(2)` on `lockPath` (created `0600` when missing).
    func withExclusiveLock<Result>(_ lockPath: String, _ body: () throws -> Result) throws -> Result

    /// Who owns the file, directory or link at `path` and its mode, without following a link
    /// (`lstat(2)`); `nil` when absent, or when this file system has no owners (in memory).
    func ownership(of path: String) throws(FileSystemError) -> FileOwnership?

    /// Gives the new file `path` (a temporary file about to replace another) the permission
    /// bits `mode` and, when `owner` is set, that owner and group (`chmod`/`chown`, which only
    /// root may do), so an atomic replace keeps the replaced file's.
    func adopt(_ path: String, mode: UInt16, owner: (user: UInt32, group: UInt32)?) throws(FileSystemError)

    /// The ``SharedGeneration`` in the lock file `lockPath` (created `0600` when missing with
    /// `create`), the same in every process. Never throws: a problem means "no counter here".
    func sharedGeneration(forLockFile lockPath: String, create: Bool) -> SharedGenerationLookup
}

extension FileSystem {
    package func contents(of path: String) throws(FileSystemError) -> Data? {
        try contents(of: path, from: 0, limit: nil, for: path)?.data
    }

    /// A file system without owners (the in-memory one): nothing to report.
    package func ownership(of path: String) throws(FileSystemError) -> FileOwnership? { nil }

    /// A file system without owners keeps no modes either.
    package func adopt(_ path: String, mode: UInt16, owner: (user: UInt32, group: UInt32)?) throws(FileSystemError) {}
}

/// What ``FileSystem/ownership(of:)`` reports: who owns an entry and its type and mode.
package struct FileOwnership: Sendable, Equatable {
    package var user: UInt32
    package var group: UInt32
    /// The permission bits with set-id and sticky bits (`st_mode & 07777`).
    package var mode: UInt16
    package var isSymbolicLink: Bool
    package var isRegularFile: Bool

    package init(user: UInt32, group: UInt32, mode: UInt16, isSymbolicLink: Bool, isRegularFile: Bool) {
        self.user = user
        self.group = group
        self.mode = mode
        self.isSymbolicLink = isSymbolicLink
        self.isRegularFile = isRegularFile
    }
}

/// What ``FileSystem/status(of:)`` reports about a file.
package struct FileStatus: Sendable, Equatable {
    package var stamp: FileStamp
    package var isDirectory: Bool
    /// The permission bits of `st_mode`, which SecureState checks before it trusts a file.
    package var permissions: UInt16

    package init(stamp: FileStamp, isDirectory: Bool, permissions: UInt16? = nil) {
        self.stamp = stamp
        self.isDirectory = isDirectory
        self.permissions = permissions ?? (isDirectory ? 0o700 : 0o600)
    }
}

/// A failed file-system operation: its `errno` and what was attempted.
package struct FileSystemError: Error, Equatable, Sendable {
    package var code: Int32
    /// What was attempted, in a few words ("open", "fsync", "rename to …").
    package var operation: String

    package init(_ code: Int32, _ operation: String) {
        self.code = code
        self.operation = operation
    }
}
