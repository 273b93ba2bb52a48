import Foundation

/// The POSIX operations AppStateKit's persistence layer performs, behind one seam: everything
/// reaches the disk through it. ``POSIXFileSystem`` is the real one; `AppStateKitTesting`'s
/// `InMemoryFileSystem` keeps files in memory and can fail any operation with any `errno`.
/// A `target` parameter names the file an operation serves, only to match injected failures.
///
/// The contract: only "absent" (`ENOENT`, `ENOTDIR`) is reported as `nil` by ``status(of:)``,
/// ``contents(of:)`` and ``linkTarget(of:)``; every other failure throws a ``FileSystemError``
/// carrying the `errno` and the operation that failed.
package protocol FileSystem: Sendable {
    /// `stat(2)`, following symbolic links; `nil` when the path does not exist.
    func status(of path: String) throws(FileSystemError) -> FileStatus?

    /// The target of the symbolic link at `path` (`readlink(2)`), or `nil` when `path` does not
    /// exist or is not a symbolic link.
    func linkTarget(of path: String) throws(FileSystemError) -> String?

    /// The bytes of the file at `path` from `offset` on (at most `limit` of them when given), read
    /// through one descriptor together with that file's stamp, or `nil` when it does not exist.
    /// Fewer bytes than asked for (none at all past the end) is not an error.
    func contents(of path: String, from offset: Int, limit: Int?, for target: String) throws(FileSystemError) -> (data: Data, stamp: FileStamp)?

    /// Writes `data` into the existing file `path` at offset `length`, first cutting off whatever
    /// the file holds past `length` (the torn tail of an append a crash interrupted); `fsync`s it
    /// when `durable`. On failure the file is cut back to `length`, as far as possible. Returns
    /// the file's stamp after the write.
    func append(_ data: Data, to path: String, after length: Int, durable: Bool, for target: String) throws(FileSystemError) -> FileStamp

    /// Creates the new file `path` (it must not exist) with mode `0600`, holding `contents`;
    /// dates it after `previous` when the clock hasn't moved past it; `fsync`s it when
    /// `durable`. On failure the partly written file is removed. Returns the new file's stamp.
    func createFile(
        _ path: String, contents: Data, datedAfter previous: FileStamp?, durable: Bool, replacing target: String
    ) throws(FileSystemError) -> FileStamp

    /// `rename(2)`: atomically replaces `destination` with `source`.
    func rename(_ source: String, to destination: String) throws(FileSystemError)

    /// `link(2)`: gives the file at `source` a second name; fails with `EEXIST` when
    /// `destination` exists.
    func link(_ source: String, to destination: String) throws(FileSystemError)

    /// `unlink(2)`.
    func remove(_ path: String) throws(FileSystemError)

    /// `mkdir(2)` with mode `0700`.
    func makeDirectory(_ path: String) throws(FileSystemError)

    /// `fsync(2)` on the directory itself, so new entries and renames in it reach the disk.
    func synchronizeDirectory(_ path: String) throws(FileSystemError)

    /// The names in the directory at `path`, without `.` and `..`.
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String]

    /// Runs `body` holding an exclusive `flock(2)` on `lockPath` (created `0600` when missing).
    func withExclusiveLock<Result>(_ lockPath: String, _ body: () throws -> Result) throws -> Result

    /// The generation counter of the file whose lock file is `lockPath` (see
    /// ``SharedGeneration``): every process asking for the same lock file gets the same counter.
    /// With `create`, a missing lock file is created (`0600`); without, a missing one is
    /// ``SharedGenerationLookup/absent``. Never throws: every problem means "no counter here",
    /// and callers check stamps instead.
    func sharedGeneration(forLockFile lockPath: String, create: Bool) -> SharedGenerationLookup
}

extension FileSystem {
    /// The whole file at `path`, or `nil` when it does not exist: the one read loop,
    /// ``contents(of:from:limit:for:)``, from the start.
    package func contents(of path: String) throws(FileSystemError) -> Data? {
        try contents(of: path, from: 0, limit: nil, for: path)?.data
    }
}

/// What ``FileSystem/status(of:)`` reports about a file.
package struct FileStatus: Sendable, Equatable {
    /// The file's stamp.
    package var stamp: FileStamp
    /// Whether it is a directory.
    package var isDirectory: Bool
    /// The permission bits of `st_mode` (`0o600`, `0o755`, …), which SecureState's writable
    /// store checks before it trusts a file.
    package var permissions: UInt16

    package init(stamp: FileStamp, isDirectory: Bool, permissions: UInt16? = nil) {
        self.stamp = stamp
        self.isDirectory = isDirectory
        self.permissions = permissions ?? (isDirectory ? 0o700 : 0o600)
    }
}

/// A failed file-system operation: its `errno` and what was attempted.
package struct FileSystemError: Error, Equatable, Sendable {
    /// The `errno` value.
    package var code: Int32
    /// What was attempted, in a few words ("open", "fsync", "rename to …").
    package var operation: String

    package init(_ code: Int32, _ operation: String) {
        self.code = code
        self.operation = operation
    }
}
