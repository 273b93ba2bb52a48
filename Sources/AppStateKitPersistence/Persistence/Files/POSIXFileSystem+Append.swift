import AppStateKitCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading part of a file and appending to one: the operations behind ``FileKeyValueStore``'s log.
extension POSIXFileSystem {
    package func contents(of path: String, from offset: Int, limit: Int?, for target: String) throws(FileSystemError) -> (data: Data, stamp: FileStamp)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw FileSystemError(code, "open")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError(errno, "fstat") }
        let available = max(Int(info.st_size) - offset, 0)
        var data = Data(count: limit.map { min($0, available) } ?? available)
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset + filled))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(errno, "read")
            }
            if count == 0 { break }
            filled += count
        }
        data.count = filled
        return (data, FileStamp(info))
    }

    package func append(_ data: Data, to path: String, after length: Int, durable: Bool, for target: String) throws(FileSystemError) -> FileStamp {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemError(errno, "open") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError(errno, "fstat") }
        if Int(info.st_size) != length, ftruncate(descriptor, off_t(length)) != 0 { throw FileSystemError(errno, "truncate") }
        var succeeded = false
        defer { if !succeeded { _ = ftruncate(descriptor, off_t(length)) } }
        if let failure = Self.writeAll(data, to: descriptor, at: length) { throw FileSystemError(failure, "write") }
        if durable, Self.synchronizeData(descriptor) != 0 { throw FileSystemError(errno, "fsync") }
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError(errno, "fstat") }
        succeeded = true
        return FileStamp(info)
    }

    /// `fdatasync` (the bytes and the size, not the times) where there is one, `fsync` otherwise.
    private static func synchronizeData(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        return fsync(descriptor)
        #else
        return fdatasync(descriptor)
        #endif
    }
}
