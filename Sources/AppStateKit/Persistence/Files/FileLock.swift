/// An advisory, process-wide exclusive lock on a lock file (`flock`), so that processes sharing
/// a store or a file serialise their read-modify-write cycles.
enum FileLock {
    /// Runs `body` holding an exclusive `flock` on `lockPath` (created `0600` when missing, in a
    /// directory created `0700` when missing).
    static func withExclusiveLock<Result>(
        _ lockPath: String, in fileSystem: some FileSystem = POSIXFileSystem(), _ body: () throws -> Result
    ) throws -> Result {
        try AtomicFileWriter.createDirectory(AtomicFileWriter.directory(of: lockPath), in: fileSystem)
        return try PersistenceError.naming(lockPath) { try fileSystem.withExclusiveLock(lockPath, body) }
    }
}
