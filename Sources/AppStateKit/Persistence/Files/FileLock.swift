import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory, process-wide exclusive lock on a lock file (`flock`), so that processes sharing
/// a store or a file serialise their read-modify-write cycles.
enum FileLock {
    /// Runs `body` holding an exclusive `flock` on `lockPath` (created `0600` when missing).
    static func withExclusiveLock<Result>(_ lockPath: String, _ body: () throws -> Result) throws -> Result {
        try AtomicFileWriter.createDirectory((lockPath as NSString).deletingLastPathComponent)
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw PersistenceError.system(errno, subject: lockPath, operation: "open lock file")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw PersistenceError.system(errno, subject: lockPath, operation: "flock")
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
