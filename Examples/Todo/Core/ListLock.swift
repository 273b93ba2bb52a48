import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serialises read-modify-write cycles on the list across processes, so two `todo` runs at once
/// never lose each other's changes: an exclusive `flock` on `<list>.lock`.
enum ListLock {
    static func withLock<Result>(for listPath: String, _ body: () throws -> Result) throws -> Result {
        let directory = (listPath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(listPath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TodoError.writeFailed(path: listPath + ".lock", reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw TodoError.writeFailed(path: listPath + ".lock", reason: String(cString: strerror(errno)))
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
