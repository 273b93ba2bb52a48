import AppStateKitCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies one version of a file: device, inode, size and modification time.
///
/// A changed stamp means a write happened since it was taken. AppStateKit's atomic writes date
/// every new version after the one it replaces, so a stamp never comes back, even with reused
/// inode numbers and a coarse clock.
package struct FileStamp: Equatable, Sendable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    package let modifiedSeconds: Int64
    let modifiedNanoseconds: Int64

    /// The stamp of the file at `path`, or `nil` when there is none (`ENOENT`, `ENOTDIR`); every
    /// other failure throws, naming `path`.
    package static func ofExistingFile(
        atPath path: String, in fileSystem: some FileSystem = POSIXFileSystem()
    ) throws(PersistenceError) -> FileStamp? {
        try status(of: path, in: fileSystem)?.stamp
    }

    static func status(of path: String, in fileSystem: some FileSystem) throws(PersistenceError) -> FileStatus? {
        do {
            return try fileSystem.status(of: path)
        } catch {
            throw PersistenceError(error, path: path)
        }
    }

    /// For file systems that are not the real one.
    package init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    init(_ info: stat) {
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
