import Foundation
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// A ``FileSystem`` over an `InMemoryFileSystem` that numbers every call and makes the call at
/// one position fail — with an `errno`, as a short write, or as a crash after which no call
/// has an effect and what was not yet flushed is dropped (issue 42, item 3).
///
/// The crash model: a file's bytes survive once `fsync`ed (a durable `createFile` or `append`);
/// a directory's entries (creations, renames, removals) once the directory is flushed. The
/// image that survives is taken whole at each flush, which is exact for the small trees here.
final class FaultInjectingFileSystem: FileSystem, @unchecked Sendable {
    // Safe: every mutable property is only accessed while `lock` is held.

    enum Fault: Equatable, CustomStringConvertible {
        case errno(Int32)
        /// Half the bytes of a write reach the file, then `EIO`.
        case shortWrite
        /// The process stops: this and every later call fails without effect.
        case crash

        var description: String {
            switch self {
            case let .errno(code): code == EIO ? "EIO" : code == ENOSPC ? "ENOSPC" : code == EINTR ? "EINTR" : "errno \(code)"
            case .shortWrite: "short write"
            case .crash: "crash"
            }
        }
    }

    private(set) var inner: InMemoryFileSystem
    private let lock = NSLock()
    private var calls = 0
    private var faultAt: Int?
    private var fault: Fault = .errno(EIO)
    private(set) var fired = false
    /// The operation the fault was injected into.
    private(set) var firedOperation = ""
    private var crashed = false
    /// What a crash leaves: path → contents (`nil` for a directory).
    private var durableImage: [String: Data?] = [:]

    init(_ inner: InMemoryFileSystem) {
        self.inner = inner
        durableImage = Self.image(of: inner)
    }

    /// Whether the injected crash has happened.
    var hasCrashed: Bool { lock.withLock { crashed } }

    /// How many calls have been made so far.
    var callCount: Int { lock.withLock { calls } }

    /// Makes call number `position` (counting from 0, from now on) fail with `fault`.
    func inject(_ fault: Fault, at position: Int) {
        lock.withLock {
            calls = 0
            faultAt = position
            self.fault = fault
            fired = false
            crashed = false
            durableImage = Self.image(of: inner)
        }
    }

    /// No more faults; after a crash, the file system as the disk holds it after a restart.
    func recover() -> InMemoryFileSystem {
        lock.withLock {
            faultAt = nil
            if crashed {
                let restored = InMemoryFileSystem()
                for (path, contents) in durableImage.sorted(by: { $0.key < $1.key }) {
                    if let contents { restored.createFile(atPath: path, contents: contents) } else { restored.createDirectory(atPath: path) }
                }
                inner = restored
                crashed = false
            }
            return inner
        }
    }

    /// Every file with its size, for messages.
    static func listing(of files: InMemoryFileSystem) -> String {
        image(of: files).sorted { $0.key < $1.key }.map { path, data in "\(path)\(data.map { " (\($0.count))" } ?? "/")" }.joined(separator: ", ")
    }

    static func image(of files: InMemoryFileSystem) -> [String: Data?] {
        var image: [String: Data?] = [:]
        func walk(_ directory: String) {
            for name in files.contentsOfDirectory(atPath: directory) {
                let path = directory == "/" ? "/\(name)" : "\(directory)/\(name)"
                if files.isSymbolicLink(atPath: path) { continue }
                if let data = files.contents(atPath: path) {
                    image[path] = .some(data)
                } else {
                    image[path] = .some(nil)
                    walk(path)
                }
            }
        }
        walk("/")
        return image
    }

    /// Counts the call; throws the injected fault when it is this call's (a short write is
    /// returned for the caller to carry out), or after a crash.
    private func enter(_ operation: String, isWrite: Bool = false) throws(FileSystemError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if crashed { throw FileSystemError(EIO, "\(operation) after the crash") }
        let position = calls
        calls += 1
        guard position == faultAt else { return false }
        firedOperation = operation
        switch fault {
        case let .errno(code):
            fired = true
            throw FileSystemError(code, operation)
        case .shortWrite:
            guard isWrite else { return false }
            fired = true
            return true
        case .crash:
            fired = true
            crashed = true
            throw FileSystemError(EIO, "\(operation): crashed")
        }
    }

    private func flushed() {
        lock.withLock { durableImage = Self.image(of: inner) }
    }

    func status(of path: String) throws(FileSystemError) -> FileStatus? {
        _ = try enter("stat")
        return try inner.status(of: path)
    }

    func linkTarget(of path: String) throws(FileSystemError) -> String? {
        _ = try enter("readlink")
        return try inner.linkTarget(of: path)
    }

    func contents(of path: String, from offset: Int, limit: Int?, for target: String) throws(FileSystemError) -> (data: Data, stamp: FileStamp)? {
        _ = try enter("read")
        return try inner.contents(of: path, from: offset, limit: limit, for: target)
    }

    func append(_ data: Data, to path: String, after length: Int, durable: Bool, for target: String) throws(FileSystemError) -> FileStamp {
        if try enter("write", isWrite: true) {
            _ = try inner.append(data.prefix(data.count / 2), to: path, after: length, durable: false, for: target)
            throw FileSystemError(EIO, "write")
        }
        let stamp = try inner.append(data, to: path, after: length, durable: durable, for: target)
        if durable {
            // fdatasync: the file's bytes survive (where its directory entry does).
            lock.withLock {
                if durableImage[path] != nil, let contents = inner.contents(atPath: path) { durableImage[path] = .some(contents) }
            }
        }
        return stamp
    }

    func createFile(_ path: String, contents: Data, datedAfter previous: FileStamp?, durable: Bool, replacing target: String) throws(FileSystemError) -> FileStamp {
        if try enter("create", isWrite: true) {
            _ = try inner.createFile(path, contents: contents.prefix(contents.count / 2), datedAfter: previous, durable: false, replacing: target)
            throw FileSystemError(EIO, "write")
        }
        return try inner.createFile(path, contents: contents, datedAfter: previous, durable: durable, replacing: target)
    }

    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        _ = try enter("rename")
        try inner.rename(source, to: destination)
    }

    func link(_ source: String, to destination: String) throws(FileSystemError) {
        _ = try enter("link")
        try inner.link(source, to: destination)
    }

    func remove(_ path: String) throws(FileSystemError) {
        _ = try enter("unlink")
        try inner.remove(path)
    }

    func makeDirectory(_ path: String) throws(FileSystemError) {
        _ = try enter("mkdir")
        try inner.makeDirectory(path)
    }

    func synchronizeDirectory(_ path: String) throws(FileSystemError) {
        _ = try enter("fsync directory")
        try inner.synchronizeDirectory(path)
        flushed()
    }

    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        _ = try enter("opendir")
        return try inner.contentsOfDirectory(path)
    }

    func withExclusiveLock<Result>(_ lockPath: String, _ body: () throws -> Result) throws -> Result {
        _ = try enter("flock")
        return try inner.withExclusiveLock(lockPath, body)
    }

    func sharedGeneration(forLockFile lockPath: String, create: Bool) -> SharedGenerationLookup {
        // Never fails (a problem means "no counter"); reads then `stat` every time.
        .unsupported
    }
}
