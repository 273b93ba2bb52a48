#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeping every version's stamp unique, so a reader's one-`stat` freshness check can't be
/// fooled.
///
/// Readers decide whether a file changed by comparing its ``FileStamp`` (device, inode, size,
/// modification time) with the one they cached. On its own that can repeat: file systems such as
/// ext4 hand a freed inode number straight to the next new file, so replacements alternate
/// between two inode numbers, and kernels before Linux 6.13 set modification times from a clock
/// that advances only every few milliseconds. Two quick same-size writes could then recreate
/// the exact stamp a reader cached, and the reader would keep the stale value.
///
/// So each replacement gets a modification time strictly later than the version it replaces:
/// when the clock hasn't moved past it, the new file is dated one nanosecond after it. Stamps
/// of successive versions then always differ. (File systems that store whole seconds, such as
/// FAT or HFS+, can't keep the nanosecond; there, two same-size writes within one second by
/// another process may still go unnoticed until the next change.)
extension AtomicFileWriter {
    /// Dates the open temporary file `descriptor` after `previous`, if the clock didn't already.
    static func dateAfter(_ previous: FileStamp, descriptor: Int32, path: String) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw PersistenceError.system(errno, subject: path, operation: "fstat temporary file")
        }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        let current = (Int64(modified.tv_sec), Int64(modified.tv_nsec))
        let before = (previous.modifiedSeconds, previous.modifiedNanoseconds)
        guard current <= before else { return }
        let next = before.1 + 1 < 1_000_000_000 ? (before.0, before.1 + 1) : (before.0 + 1, 0)
        let time = timespec(tv_sec: time_t(next.0), tv_nsec: Int(next.1))
        var times = [time, time]
        guard futimens(descriptor, &times) == 0 else {
            throw PersistenceError.system(errno, subject: path, operation: "set the modification time of the temporary file")
        }
    }
}
