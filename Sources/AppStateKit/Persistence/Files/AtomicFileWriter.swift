import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that a crash at any moment leaves either the old or the new complete file.
///
/// The bytes go to a temporary file in the same directory (mode `0600`), which is flushed
/// with `fsync` and renamed over the target; the directory is then flushed so the rename itself
/// survives a power loss. Missing directories are created with mode `0700`. Temporary files
/// left by killed writers are removed by the next process that writes the same path. Each new
/// version is dated after the one it replaces, so its ``FileStamp`` never repeats an old one.
enum AtomicFileWriter {
    /// Writes `data` to `path` atomically.
    ///
    /// - Parameter durable: When `false`, skips the two `fsync` calls: the result still survives
    ///   the process being killed (the kernel has the data), but not an OS crash or power loss.
    /// - Returns: The stamp of the file written, taken before it was renamed into place, so a
    ///   replacement by another process right after can't be mistaken for it (`nil` if `fstat`
    ///   failed).
    @discardableResult
    static func write(_ data: Data, to path: String, durable: Bool = true) throws -> FileStamp? {
        let directory = (path as NSString).deletingLastPathComponent
        try createDirectory(directory)
        removeAbandonedTemporaryFiles(of: path)
        let temporary = temporaryPath(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw PersistenceError.system(errno, subject: path, operation: "create \(temporary)")
        }
        var succeeded = false
        let stamp: FileStamp?
        defer {
            if !succeeded { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc_write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw PersistenceError.system(errno, subject: path, operation: "write")
                    }
                    offset += written
                }
            }
            if let previous = FileStamp.of(path: path) {
                try dateAfter(previous, descriptor: descriptor, path: path)
            }
            if durable, fsync(descriptor) != 0 {
                throw PersistenceError.system(errno, subject: path, operation: "fsync")
            }
            stamp = FileStamp.of(descriptor: descriptor)
        }
        guard rename(temporary, path) == 0 else {
            throw PersistenceError.system(errno, subject: path, operation: "rename")
        }
        succeeded = true
        if durable {
            try syncDirectory(directory, subject: path)
        }
        return stamp
    }

    /// Creates `directory` and its parents with mode `0700` if missing, flushing each parent
    /// so a new directory's entry survives a power loss like the file written into it.
    static func createDirectory(_ directory: String) throws {
        guard !directory.isEmpty else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw PersistenceError(.ioFailure(errno: ENOTDIR), subject: directory, detail: "exists and is not a directory")
            }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if parent != directory { try createDirectory(parent) }
        if mkdir(directory, 0o700) != 0 {
            guard errno == EEXIST else {
                throw PersistenceError.system(errno, subject: directory, operation: "mkdir")
            }
            return
        }
        try syncDirectory(parent, subject: directory)
    }

    /// Moves the file at `path` aside to a `.corrupt-<time>` sibling and returns the new path.
    static func moveAside(_ path: String) throws -> String {
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        let destination = "\(path).corrupt-\(stamp)"
        guard rename(path, destination) == 0 else {
            throw PersistenceError.system(errno, subject: path, operation: "move aside to \(destination)")
        }
        return destination
    }

    /// Reads the whole file at `path`, or returns `nil` if there is none.
    static func read(_ path: String) throws -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw PersistenceError.system(errno, subject: path, operation: "open")
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc_read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw PersistenceError.system(errno, subject: path, operation: "read")
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Flushes `directory` itself, so a rename or a new entry in it reaches the disk.
    ///
    /// File systems that cannot flush a directory (`EINVAL`) are accepted; any other failure
    /// throws, naming `subject`: the file is in place but may not survive a power loss.
    private static func syncDirectory(_ directory: String, subject: String) throws {
        let target = directory.isEmpty ? "." : directory
        let descriptor = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PersistenceError.system(errno, subject: subject, operation: "open directory \(target) to flush it")
        }
        defer { close(descriptor) }
        if fsync(descriptor) != 0, errno != EINVAL {
            throw PersistenceError.system(errno, subject: subject, operation: "flush directory \(target)")
        }
    }
}

// `write` and `read` are shadowed by static members above; reach the C functions by these names.
@inline(__always)
private func Glibc_write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

@inline(__always)
private func Glibc_read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
