import AppStateKitCore
import AppStateKitPersistence
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a secret's file the way OpenSSH reads a private key: one `open` per read, then every
/// check on the descriptor (`fstat`), so the file checked is the file read.
///
/// - The writable store's files are opened `O_NOFOLLOW` relative to the store directory's
///   descriptor, which is checked first (a directory, owned by the effective user, no group or
///   other bits): a link planted in the store is refused, never followed.
/// - Files of read-only mounts (systemd credentials, Docker and Kubernetes secrets) may be links,
///   as Kubernetes makes every key a link into a timestamped directory.
/// - Every file is opened `O_NONBLOCK` and must be a regular file: a FIFO, socket or device named
///   like a key is an error, never a read that waits forever.
/// - At most `limit + 1` bytes are read, however large the file says or grows.
///
/// Only the real file system has descriptors; ``SecretFiles`` uses this for ``POSIXFileSystem``
/// and the same checks through the ``FileSystem`` seam for `InMemoryFileSystem`.
enum SecretFileReader {
    /// What a read found.
    enum Outcome {
        /// No file (or no store directory).
        case absent
        /// The file's bytes: at most `limit + 1` of them.
        case contents(Data)
        /// Why the file is not used.
        case refused(SecureStateError.Kind, detail: String)
        /// Why the store directory `directory` is not used.
        case refusedDirectory(String, detail: String)
        /// A system call failed with `errno`.
        case failed(FileSystemError)
    }

    /// What the file's owner must be: this process's effective user (`geteuid()`).
    static var effectiveUser: UInt32 { UInt32(geteuid()) }

    /// The file `path` of a read-only mount: links followed, a regular file, any owner and mode.
    static func readMounted(_ path: String, limit: Int) -> Outcome {
        let descriptor = openRetrying { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        return read(descriptor, path: path, limit: limit, requirePrivate: false)
    }

    /// The file `name` in the writable store's directory `directory`: the directory checked,
    /// the file opened without following a link, a private regular file of the effective user.
    static func readStored(_ name: String, in directory: String, limit: Int) -> Outcome {
        let directoryDescriptor = openRetrying { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard directoryDescriptor >= 0 else {
            let code = errno
            if code == ENOENT { return .absent }
            if code == ENOTDIR { return .refused(.unreadable, detail: "the store directory \(directory) is not a directory") }
            return .failed(FileSystemError(code, "open the store directory"))
        }
        defer { close(directoryDescriptor) }
        var info = stat()
        guard fstat(directoryDescriptor, &info) == 0 else { return .failed(FileSystemError(errno, "fstat the store directory")) }
        if let problem = SecretFileRules.storeDirectoryProblem(
            permissions: UInt16(truncatingIfNeeded: info.st_mode & 0o7777), owner: UInt32(info.st_uid), path: directory, action: "read"
        ) {
            return .refusedDirectory(directory, detail: problem)
        }
        let descriptor = openRetrying { openat(directoryDescriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        return read(descriptor, path: (directory as NSString).appendingPathComponent(name), limit: limit, requirePrivate: true)
    }

    /// The owner and permission bits of `path` (following links), or `nil` when absent.
    static func ownerAndPermissions(of path: String) throws(FileSystemError) -> (owner: UInt32, permissions: UInt16)? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw FileSystemError(code, "stat")
        }
        return (UInt32(info.st_uid), UInt16(truncatingIfNeeded: info.st_mode & 0o7777))
    }

    /// `open`, retried while interrupted.
    private static func openRetrying(_ call: () -> Int32) -> Int32 {
        while true {
            let descriptor = call()
            if descriptor >= 0 || errno != EINTR { return descriptor }
        }
    }

    /// Checks the file open at `descriptor` (negative: the failed `open`, its `errno` still
    /// set) and reads at most `limit + 1` bytes of it; closes it.
    private static func read(_ descriptor: Int32, path: String, limit: Int, requirePrivate: Bool) -> Outcome {
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: return .absent
            // With O_NOFOLLOW, open fails with ELOOP (EMLINK on FreeBSD) on a link.
            case ELOOP, EMLINK:
                guard requirePrivate else { return .failed(FileSystemError(code, "open")) }
                return .refused(.notRegularFile, detail: SecretFileRules.linkDetail)
            case ENXIO: return .refused(.notRegularFile, detail: "it is a socket or a device, not a regular file")
            default: return .failed(FileSystemError(code, "open"))
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failed(FileSystemError(errno, "fstat")) }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR { return .refused(.isDirectory, detail: "found a directory where the file holding the secret should be") }
        guard type == S_IFREG else {
            return .refused(.notRegularFile, detail: "it is \(typeName(type)), not a regular file, so it is not read")
        }
        if requirePrivate, let problem = SecretFileRules.storeFileProblem(
            permissions: UInt16(truncatingIfNeeded: info.st_mode & 0o7777), owner: UInt32(info.st_uid), path: path
        ) {
            return .refused(.insecurePermissions, detail: problem)
        }
        if info.st_size > Int64(limit) {
            return .refused(.tooLarge, detail: SecretFiles.tooLargeDetail(size: Int(info.st_size), limit: limit))
        }
        // The file may grow between the fstat and the reads: never more than limit + 1 bytes.
        var data = Data(count: min(Int(info.st_size), limit) + 1)
        var count = 0
        while count < data.count {
            let done = data.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if done < 0 {
                if errno == EINTR { continue }
                return .failed(FileSystemError(errno, "read"))
            }
            if done == 0 { break }
            count += done
            if count == data.count, count <= limit { data.count = min(data.count * 2, limit + 1) }
        }
        data.count = count
        return .contents(data)
    }

    /// A file type (`st_mode & S_IFMT`) in words.
    static func typeName(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }
}

/// `read(2)`, which a method named `read` would shadow.
@inline(__always)
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// The writable store's rules for its directory and files, shared by the descriptor reads, the
/// file-system seam's reads and the writes.
enum SecretFileRules {
    /// Why a link in the store is not read.
    static let linkDetail = "it is a symbolic link, which the store never follows (another user may have planted it); remove it and write the secret again"

    /// Why the store directory (mode `permissions`, owned by `owner`; `nil` when unknown) must
    /// not be used, or `nil`.
    static func storeDirectoryProblem(permissions: UInt16, owner: UInt32?, path: String, action: String) -> String? {
        if let owner, owner != SecretFileReader.effectiveUser {
            return "the directory \(path) belongs to user \(owner), not to this process's user \(SecretFileReader.effectiveUser), so nothing was \(action); make it yours (chown) or use another directory"
        }
        if permissions & 0o077 != 0 {
            return "mode \(SecretFiles.octal(permissions)) lets other users access it, so nothing was \(action); run chmod 700 \(path)"
        }
        return nil
    }

    /// Why a store file (mode `permissions`, owned by `owner`; `nil` when unknown) must not be
    /// read, or `nil`.
    static func storeFileProblem(permissions: UInt16, owner: UInt32?, path: String) -> String? {
        if let owner, owner != SecretFileReader.effectiveUser {
            return "it belongs to user \(owner), not to this process's user \(SecretFileReader.effectiveUser), so it is not used; if nobody else could have written it, run chown \(SecretFileReader.effectiveUser) \(path), otherwise replace the secret"
        }
        if permissions & 0o077 != 0 {
            return "mode \(SecretFiles.octal(permissions)) lets other users access it, so it is not used; run chmod 600 \(path) if nobody else could have read it, otherwise replace the secret"
        }
        return nil
    }
}
