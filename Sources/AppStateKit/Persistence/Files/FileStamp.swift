#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies one version of a file: device, inode, size and modification time.
///
/// A changed stamp means another write (from this process or another one) happened since the
/// stamp was taken. AppStateKit's atomic writes date every new version after the one it
/// replaces, so a stamp never comes back even when the file system reuses inode numbers and the
/// kernel's clock is coarse.
public struct FileStamp: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modifiedSeconds: Int64
    let modifiedNanoseconds: Int64

    /// The stamp of the file at `path`, or `nil` if there is no file.
    public static func of(path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    /// The stamp of the open file `descriptor`, or `nil` if `fstat` fails.
    static func of(descriptor: Int32) -> FileStamp? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    private init(_ info: stat) {
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int64(modified.tv_sec)
        modifiedNanoseconds = Int64(modified.tv_nsec)
    }
}
