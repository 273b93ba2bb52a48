import Foundation
package import AppStateKit

/// The seam AppStateKit's persistence layer calls: each operation checks the injected failures
/// first, then acts on the in-memory tree as the POSIX call would.
extension InMemoryFileSystem: FileSystem {
    package func status(of path: String) throws(FileSystemError) -> FileStatus? {
        let path = Self.normalized(path)
        return try locked { () throws(FileSystemError) -> FileStatus? in
            try check(.stat, path)
            guard parentExists(of: path) else { return nil }
            switch storage.nodes[resolved(path)] {
            case let .file(_, stamp)?: return FileStatus(stamp: stamp, isDirectory: false, permissions: permissions(ofNodeAt: resolved(path), inode: stamp.inode))
            case .directory?:
                let stamp = FileStamp(device: device, inode: 0, size: 0, modifiedSeconds: 0, modifiedNanoseconds: 0)
                return FileStatus(stamp: stamp, isDirectory: true, permissions: permissions(ofNodeAt: resolved(path), inode: 0))
            case .symbolicLink?, nil: return nil
            }
        }
    }

    package func linkTarget(of path: String) throws(FileSystemError) -> String? {
        let path = Self.normalized(path)
        return try locked { () throws(FileSystemError) -> String? in
            try check(.readLink, path)
            guard case let .symbolicLink(target)? = storage.nodes[path] else { return nil }
            return target
        }
    }

    // Reading part of a file and appending to one: the same injected failures as whole-file
    // reads (`.read`) and writes (`.write`, `.sync`).
    package func contents(of path: String, from offset: Int, limit: Int?, for target: String) throws(FileSystemError) -> (data: Data, stamp: FileStamp)? {
        let path = Self.normalized(path)
        let target = Self.normalized(target)
        return try locked { () throws(FileSystemError) -> (data: Data, stamp: FileStamp)? in
            try check(.read, path, target)
            guard parentExists(of: path) else { return nil }
            switch storage.nodes[resolved(path)] {
            case let .file(data, stamp)?:
                let start = min(offset, data.count)
                let end = limit.map { min(start + $0, data.count) } ?? data.count
                return (Data(data[data.startIndex + start..<data.startIndex + end]), stamp)
            case .directory?: throw FileSystemError(EISDIR, "read")
            case .symbolicLink?, nil: return nil
            }
        }
    }

    package func append(_ data: Data, to path: String, after length: Int, durable: Bool, for target: String) throws(FileSystemError) -> FileStamp {
        let path = Self.normalized(path)
        let target = Self.normalized(target)
        return try locked { () throws(FileSystemError) -> FileStamp in
            let location = resolved(path)
            guard case let .file(existing, old)? = storage.nodes[location] else { throw FileSystemError(ENOENT, "open") }
            try check(.write, path, target)
            if durable { try check(.sync, path, target) }
            var contents = Data(existing.prefix(length))
            contents.append(data)
            storage.clock += 1
            let stamp = FileStamp(
                device: old.device, inode: old.inode, size: Int64(contents.count),
                modifiedSeconds: storage.clock / 1_000_000_000, modifiedNanoseconds: storage.clock % 1_000_000_000
            )
            storage.nodes[location] = .file(contents, stamp)
            return stamp
        }
    }

    package func createFile(
        _ path: String, contents: Data, datedAfter previous: FileStamp?, durable: Bool, replacing target: String
    ) throws(FileSystemError) -> FileStamp {
        let path = Self.normalized(path)
        let target = Self.normalized(target)
        return try locked { () throws(FileSystemError) -> FileStamp in
            try check(.create, path, target)
            try checkParent(of: path, "create")
            guard storage.nodes[path] == nil else { throw FileSystemError(EEXIST, "create") }
            try check(.write, path, target)
            if durable { try check(.sync, path, target) }
            let stamp = newStamp(size: contents.count)
            storage.nodes[path] = .file(contents, stamp)
            return stamp
        }
    }

    package func rename(_ source: String, to destination: String) throws(FileSystemError) {
        let source = Self.normalized(source)
        let destination = Self.normalized(destination)
        try locked { () throws(FileSystemError) in
            try check(.rename, source, destination)
            guard let node = storage.nodes[source] else { throw FileSystemError(ENOENT, "rename") }
            try checkParent(of: destination, "rename")
            if case .directory? = storage.nodes[destination] { throw FileSystemError(EISDIR, "rename") }
            storage.nodes[source] = nil
            storage.nodes[destination] = node
        }
    }

    package func link(_ source: String, to destination: String) throws(FileSystemError) {
        let source = Self.normalized(source)
        let destination = Self.normalized(destination)
        try locked { () throws(FileSystemError) in
            try check(.link, source, destination)
            guard let node = storage.nodes[source] else { throw FileSystemError(ENOENT, "link") }
            if case .directory = node { throw FileSystemError(EPERM, "link") }
            try checkParent(of: destination, "link")
            guard storage.nodes[destination] == nil else { throw FileSystemError(EEXIST, "link") }
            storage.nodes[destination] = node
        }
    }

    package func remove(_ path: String) throws(FileSystemError) {
        let path = Self.normalized(path)
        try locked { () throws(FileSystemError) in
            try check(.remove, path)
            switch storage.nodes[path] {
            case nil: throw FileSystemError(ENOENT, "unlink")
            case .directory?: throw FileSystemError(EISDIR, "unlink")
            case .file?, .symbolicLink?: storage.nodes[path] = nil
            }
        }
    }

    package func makeDirectory(_ path: String) throws(FileSystemError) {
        let path = Self.normalized(path)
        try locked { () throws(FileSystemError) in
            try check(.makeDirectory, path)
            try checkParent(of: path, "mkdir")
            guard storage.nodes[path] == nil else { throw FileSystemError(EEXIST, "mkdir") }
            storage.nodes[path] = .directory
        }
    }

    package func synchronizeDirectory(_ path: String) throws(FileSystemError) {
        let path = Self.normalized(path)
        try locked { () throws(FileSystemError) in
            try check(.syncDirectory, path)
            guard path == "." || storage.nodes[resolved(path)] != nil else { throw FileSystemError(ENOENT, "open directory") }
        }
    }

    package func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        let path = Self.normalized(path)
        return try locked { () throws(FileSystemError) -> [String] in
            try check(.list, path)
            switch storage.nodes[resolved(path)] {
            case .directory?: return children(of: resolved(path))
            case nil: throw FileSystemError(ENOENT, "opendir")
            case .file?, .symbolicLink?: throw FileSystemError(ENOTDIR, "opendir")
            }
        }
    }

    package func withExclusiveLock<Result>(_ lockPath: String, _ body: () throws -> Result) throws -> Result {
        let lockPath = Self.normalized(lockPath)
        try locked { () throws(FileSystemError) in
            try check(.lock, lockPath)
            try checkParent(of: lockPath, "open lock file")
            if storage.nodes[lockPath] == nil { storage.nodes[lockPath] = .file(Data(), newStamp(size: 0)) }
        }
        // The timeout only makes the wait look again; a release wakes it at once.
        heldLocks.withLock(waitingOn: lockReleased, timeout: .seconds(1)) { held, _ in
            held.insert(lockPath).inserted ? () : nil
        }
        defer {
            heldLocks.withLock { _ = $0.remove(lockPath) }
            lockReleased.broadcast()
        }
        return try body()
    }

    /// One counter for every file, incremented by every change to any file (including those made
    /// with `createFile(atPath:contents:)`), so freshness checks can be tested in memory.
    package func sharedGeneration(forLockFile lockPath: String, create: Bool) -> SharedGenerationLookup {
        .shared(lock.withLock { storage.changes })
    }

}

extension InMemoryFileSystem.Operation {
    /// The name the real file system's errors use for this operation.
    var systemCallName: String {
        switch self {
        case .stat: "stat"
        case .readLink: "readlink"
        case .read: "read"
        case .create: "create"
        case .write: "write"
        case .sync: "fsync"
        case .rename: "rename"
        case .link: "link"
        case .remove: "unlink"
        case .makeDirectory: "mkdir"
        case .syncDirectory: "fsync directory"
        case .list: "opendir"
        case .lock: "flock"
        }
    }
}
