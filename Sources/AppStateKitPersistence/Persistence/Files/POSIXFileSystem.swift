import AppStateKitCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real ``FileSystem``: direct system calls, retried on `EINTR`.
package struct POSIXFileSystem: FileSystem {
    package init() {}

    package func status(of path: String) throws(FileSystemError) -> FileStatus? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw FileSystemError(code, "stat")
        }
        return FileStatus(
            stamp: FileStamp(info), isDirectory: (info.st_mode & S_IFMT) == S_IFDIR, permissions: UInt16(truncatingIfNeeded: info.st_mode & 0o7777)
        )
    }

    package func linkTarget(of path: String) throws(FileSystemError) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else {
            let code = errno
            if code == EINVAL || code == ENOENT || code == ENOTDIR { return nil }  // not a link, or absent
            throw FileSystemError(code, "readlink")
        }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package func createFile(
        _ path: String, contents: Data, datedAfter previous: FileStamp?, durable: Bool, replacing target: String
    ) throws(FileSystemError) -> FileStamp {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileSystemError(errno, "create") }
        var succeeded = false
        defer {
            close(descriptor)
            if !succeeded { unlink(path) }
        }
        if let failure = Self.writeAll(contents, to: descriptor) { throw FileSystemError(failure, "write") }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError(errno, "fstat") }
        if let previous, let dated = Self.dateAfter(previous, current: FileStamp(info)) {
            var times = [dated, dated]
            guard futimens(descriptor, &times) == 0 else { throw FileSystemError(errno, "set the modification time") }
            guard fstat(descriptor, &info) == 0 else { throw FileSystemError(errno, "fstat") }
        }
        if durable, fsync(descriptor) != 0 { throw FileSystemError(errno, "fsync") }
        succeeded = true
        return FileStamp(info)
    }

    /// The time to give a new file so it is dated after `previous`, or `nil` when it already is.
    private static func dateAfter(_ previous: FileStamp, current: FileStamp) -> timespec? {
        let now = (current.modifiedSeconds, current.modifiedNanoseconds)
        let before = (previous.modifiedSeconds, previous.modifiedNanoseconds)
        guard now <= before else { return nil }
        let next = before.1 + 1 < 1_000_000_000 ? (before.0, before.1 + 1) : (before.0 + 1, 0)
        return timespec(tv_sec: time_t(next.0), tv_nsec: Int(next.1))
    }

    package func rename(_ source: String, to destination: String) throws(FileSystemError) {
        guard systemRename(source, destination) == 0 else { throw FileSystemError(errno, "rename") }
    }

    package func link(_ source: String, to destination: String) throws(FileSystemError) {
        guard systemLink(source, destination) == 0 else { throw FileSystemError(errno, "link") }
    }

    package func remove(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 else { throw FileSystemError(errno, "unlink") }
    }

    package func makeDirectory(_ path: String) throws(FileSystemError) {
        guard mkdir(path, 0o700) == 0 else { throw FileSystemError(errno, "mkdir") }
    }

    package func synchronizeDirectory(_ path: String) throws(FileSystemError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemError(errno, "open directory") }
        defer { close(descriptor) }
        // File systems that cannot flush a directory report EINVAL; that is accepted.
        if fsync(descriptor) != 0, errno != EINVAL { throw FileSystemError(errno, "fsync directory") }
    }

    package func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(path) else { throw FileSystemError(errno, "opendir") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    package func ownership(of path: String) throws(FileSystemError) -> FileOwnership? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw FileSystemError(code, "lstat")
        }
        let type = info.st_mode & S_IFMT
        return FileOwnership(
            user: UInt32(info.st_uid), group: UInt32(info.st_gid), mode: UInt16(truncatingIfNeeded: info.st_mode & 0o7777),
            isSymbolicLink: type == S_IFLNK, isRegularFile: type == S_IFREG
        )
    }

    package func adopt(_ path: String, mode: UInt16, owner: (user: UInt32, group: UInt32)?) throws(FileSystemError) {
        if let owner, lchown(path, uid_t(owner.user), gid_t(owner.group)) != 0 { throw FileSystemError(errno, "chown") }
        // After chown, which clears set-id bits.
        guard chmod(path, mode_t(mode & 0o7777)) == 0 else { throw FileSystemError(errno, "chmod") }
    }

    package func withExclusiveLock<Result>(_ lockPath: String, _ body: () throws -> Result) throws -> Result {
        // Never through a link (one planted in a shared directory would point the writes of
        // the shared counter at any file), and only a regular file.
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else { throw FileSystemError(errno, "open lock file") }
        defer { close(descriptor) }
        try Self.checkRegularFile(descriptor, "open lock file")
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileSystemError(errno, "flock") }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}

extension POSIXFileSystem {
    /// Throws unless `descriptor` is a regular file (a lock file must be: not a FIFO, a device
    /// or a directory someone put in its place).
    static func checkRegularFile(_ descriptor: Int32, _ operation: String) throws(FileSystemError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError(errno, "fstat") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileSystemError(EINVAL, "\(operation): not a regular file") }
    }

    /// Writes every byte of `bytes` to `descriptor` — at the current position, or from `offset`
    /// with `pwrite` — retrying interrupted calls; returns the `errno` of a failure.
    static func writeAll(_ bytes: Data, to descriptor: Int32, at offset: Int? = nil) -> Int32? {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let start = buffer.baseAddress! + done
                let count = offset.map { pwrite(descriptor, start, buffer.count - done, off_t($0 + done)) }
                    ?? systemWrite(descriptor, start, buffer.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += count
            }
            return nil
        }
    }
}

// `read` and `write` are easy to shadow; reach the C functions by these names.
@inline(__always)
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

@inline(__always)
private func systemRename(_ source: String, _ destination: String) -> Int32 {
    rename(source, destination)
}

@inline(__always)
private func systemLink(_ source: String, _ destination: String) -> Int32 {
    link(source, destination)
}
