import AppStateKitCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The generation counter in the first 8 bytes of a lock file, mapped `MAP_SHARED`.
///
/// A shared mapping is only as coherent as the file system's page cache: a network or
/// user-space file system (NFS, SMB/CIFS, FUSE, Ceph, AFS, 9P, …) can give each host or process
/// its own copy, so there ``SharedGenerationLookup/unsupported`` makes readers `stat` per read.
extension POSIXFileSystem {
    package func sharedGeneration(forLockFile lockPath: String, create: Bool) -> SharedGenerationLookup {
        var writable = true
        // Never through a link (see `withExclusiveLock`), never blocking on a FIFO.
        let flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var descriptor = open(lockPath, O_RDWR | flags | (create ? O_CREAT : 0), 0o600)
        if descriptor < 0, errno == EACCES || errno == EROFS || errno == EPERM {
            writable = false
            descriptor = open(lockPath, O_RDONLY | flags)
        }
        // Absent only when it could have been created (or wasn't to be): a process that may not
        // create it stops asking, and checks stamps.
        guard descriptor >= 0 else { return (errno == ENOENT || errno == ENOTDIR) && (writable || !create) ? .absent : .unsupported }
        defer { close(descriptor) }
        guard !Self.isNetworkFileSystem(descriptor) else { return .unsupported }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .unsupported }
        let length = 8
        if Int(info.st_size) < length {
            // Lock files of earlier versions are empty. Growing to 8 zero bytes is idempotent, so
            // processes racing here agree; a file is never shrunk.
            guard writable, ftruncate(descriptor, off_t(length)) == 0 else { return .unsupported }
        }
        let protection = writable ? PROT_READ | PROT_WRITE : PROT_READ
        guard let address = mmap(nil, length, protection, MAP_SHARED, descriptor, 0), address != MAP_FAILED else {
            return .unsupported
        }
        return .shared(SharedGeneration(
            mappedAt: address, length: length, writable: writable, device: UInt64(info.st_dev), inode: UInt64(info.st_ino)
        ))
    }

    /// Whether the file lives where shared mappings may not be coherent between processes or hosts.
    static func isNetworkFileSystem(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        var info = statfs()
        guard fstatfs(descriptor, &info) == 0 else { return true }
        let name = withUnsafeBytes(of: info.f_fstypename) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return ["nfs", "smbfs", "afpfs", "webdav", "cifs", "macfuse", "osxfuse", "fusefs"].contains(name)
        #else
        // Glibc's module map leaves out <sys/vfs.h>, so `fstatfs` is looked up by name. Its
        // `struct statfs` starts with `f_type`, a word on every Linux architecture.
        typealias FileSystemStatus = @convention(c) (Int32, UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(nil, "fstatfs") else { return true }
        let fstatfs = unsafeBitCast(symbol, to: FileSystemStatus.self)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        guard fstatfs(descriptor, buffer) == 0 else { return true }
        let type = UInt64(UInt(bitPattern: buffer.load(as: Int.self))) & 0xFFFF_FFFF
        return networkFileSystemTypes.contains(type)
        #endif
    }

    /// `statfs` `f_type`s (linux/magic.h) of network, cluster and user-space file systems.
    private static let networkFileSystemTypes: Set<UInt64> = [
        0x6969,  // NFS
        0x517B,  // SMB
        0xFF53_4D42,  // CIFS
        0xFE53_4D42,  // SMB2
        0x6573_5546,  // FUSE
        0x00C3_6400,  // Ceph
        0x5346_414F,  // AFS
        0x6B41_4653,  // kAFS
        0x0102_1997,  // 9P
        0x7375_7245,  // Coda
        0x564C,  // NCP
        0x7461_636F,  // OCFS2
        0x0116_1970,  // GFS2
        0x0BD0_0BD0,  // Lustre
        0x1992_0312,  // OrangeFS
        0x4750_4653,  // GPFS
    ]
}
