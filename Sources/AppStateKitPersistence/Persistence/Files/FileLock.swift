import AppStateKitCore
/// An advisory, process-wide exclusive lock on a lock file (`flock`), so that processes sharing
/// a store or a file serialise their read-modify-write cycles.
package enum FileLock {
    /// Runs `body` holding an exclusive `flock` on `lockPath` (created `0600` when missing, in a
    /// directory created `0700` when missing; never through a link, only a regular file; in a
    /// directory ``AtomicFileWriter/checkTrustedDirectory(_:in:)`` accepts).
    package static func withExclusiveLock<Result>(
        _ lockPath: String, in fileSystem: some FileSystem = POSIXFileSystem(), _ body: () throws -> Result
    ) throws -> Result {
        let directory = AtomicFileWriter.directory(of: lockPath)
        try AtomicFileWriter.createDirectory(directory, in: fileSystem)
        try AtomicFileWriter.checkTrustedDirectory(directory, in: fileSystem)
        return try PersistenceError.naming(lockPath) { try fileSystem.withExclusiveLock(lockPath, body) }
    }
}
