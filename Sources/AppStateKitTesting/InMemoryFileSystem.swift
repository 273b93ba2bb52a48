public import Foundation
import Synchronization
internal import AppStateKit

/// A file system in memory that fails on request: for tests of what your code does when the
/// disk says no (`EACCES`, `EIO`, `ENOSPC`, …), without touching the disk and without file
/// permissions (which don't stop root).
///
/// Use it as the `\.fileManager` of ``AppStateKit/Application/FileState``s, or as the file system of a
/// ``AppStateKit/FileKeyValueStore``:
///
/// ```swift
/// @Test(.isolatedApplication)
/// func reportsAFullDisk() throws {
///     let files = InMemoryFileSystem()
///     files.fail(.write, at: "/data", with: ENOSPC)
///     try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
///         #expect(throws: PersistenceError.self) { try Application.fileState(\.notes).write(["x"]) }
///     }
///     let store = FileKeyValueStore(path: "/config/defaults.json", fileSystem: files)
///     #expect(throws: PersistenceError.self) { try store.writeObject(1, forKey: "k") }
/// }
/// ```
///
/// It behaves like a POSIX file system for what AppStateKit does: files, directories and
/// symbolic links (on the last path component), `ENOENT`/`ENOTDIR`/`EEXIST`/`EISDIR` where
/// the real calls report them, atomic renames, and exclusive locks between threads. Every new
/// version of a file gets a new inode and a later modification time. It is safe to use from
/// any thread.
public final class InMemoryFileSystem: @unchecked Sendable {
    // Safe: `storage` is only accessed while `lock` is held.

    /// An operation a failure can be injected into.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        /// `stat`: examining a path (every read and write starts with it).
        case stat
        /// `readlink`: checking whether a path is a symbolic link.
        case readLink
        /// `open` and `read` of a whole file.
        case read
        /// Creating a new (temporary) file.
        case create
        /// Writing the bytes of a new file.
        case write
        /// `fsync` of a new file.
        case sync
        /// `rename`.
        case rename
        /// `link` (used to move corrupt files aside without replacing an existing backup).
        case link
        /// `unlink`.
        case remove
        /// `mkdir`.
        case makeDirectory
        /// `fsync` of a directory.
        case syncDirectory
        /// Listing a directory.
        case list
        /// Taking an exclusive `flock`.
        case lock
    }

    struct Failure {
        let operation: Operation
        let path: String
        let code: Int32
        var remaining: Int?
    }

    enum Node {
        case file(Data, FileStamp)
        case directory
        case symbolicLink(String)
    }

    struct Storage {
        /// The generation counter of every file in this file system (see `sharedGeneration`).
        let changes = SharedGeneration()
        var nodes: [String: Node] = ["/": .directory] {
            // Every change to the tree counts as a write every reader must notice, so readers
            // using the counter see files arranged with `createFile` at once, too. (Injected
            // failures don't count.)
            didSet { changes.increment() }
        }
        var failures: [Failure] = []
        /// Permission bits set with `setPermissions(_:atPath:)`, by path, with the inode of the
        /// file they were set on (0 for a directory): a file replaced since has the default again.
        var permissions: [String: (inode: UInt64, bits: UInt16)] = [:]
        var clock: Int64 = 1_700_000_000_000_000_000
        var nextInode: UInt64 = 1
    }

    let lock = Lock()
    var storage = Storage()
    /// The paths whose exclusive lock a thread holds, and the condition a release signals.
    let heldLocks = LockedBox(Set<String>())
    let lockReleased = Condition()
    /// This file system's device number, in every stamp it gives: each instance has its own, so
    /// a file's stamp from one never equals a stamp from another (as two disks' never do).
    let device: UInt64

    /// Device numbers far above real ones, one per instance.
    private static let nextDevice = Atomic<UInt64>(1 << 48)

    /// Creates an empty file system holding only `/`.
    public init() {
        device = Self.nextDevice.add(1, ordering: .relaxed).newValue
    }

    // MARK: Injecting failures

    /// Makes `operation` fail with `errno` for `path` and everything beneath it.
    ///
    /// A new file written to replace `path` (the temporary file of an atomic write) counts as
    /// `path`, so `fail(.write, at: "/data/notes.json", with: ENOSPC)` fails writes of that one
    /// file. Failures registered for the same operation and path apply in the order registered.
    ///
    /// - Parameter times: How many calls fail before the operation works again; `nil` (the
    ///   default) fails every call until ``removeFailures()``.
    public func fail(_ operation: Operation, at path: String, with errno: Int32, times: Int? = nil) {
        lock.withLock {
            storage.failures.append(Failure(operation: operation, path: Self.normalized(path), code: errno, remaining: times))
        }
    }

    /// Removes every injected failure.
    public func removeFailures() {
        lock.withLock { storage.failures.removeAll() }
    }

    // MARK: Arranging and inspecting files

    /// Creates or replaces the file at `path` with `contents`, creating missing directories.
    /// Never fails: injected failures don't apply.
    public func createFile(atPath path: String, contents: Data) {
        let path = Self.normalized(path)
        lock.withLock {
            createParents(of: path)
            storage.nodes[path] = .file(contents, newStamp(size: contents.count))
        }
    }

    /// Creates or replaces the file at `path` with the UTF-8 bytes of `text`.
    public func createFile(atPath path: String, text: String) {
        createFile(atPath: path, contents: Data(text.utf8))
    }

    /// Creates a symbolic link at `path` pointing to `destination` (absolute, or relative to
    /// the link's directory), creating missing directories.
    public func createSymbolicLink(atPath path: String, withDestinationPath destination: String) {
        let path = Self.normalized(path)
        lock.withLock {
            createParents(of: path)
            storage.nodes[path] = .symbolicLink(destination)
        }
    }

    /// Creates the directory at `path` and its parents.
    public func createDirectory(atPath path: String) {
        let path = Self.normalized(path)
        lock.withLock {
            createParents(of: path)
            storage.nodes[path] = .directory
        }
    }

    /// The contents of the file at `path` (following symbolic links), or `nil`.
    public func contents(atPath path: String) -> Data? {
        lock.withLock {
            guard case let .file(data, _)? = storage.nodes[resolved(Self.normalized(path))] else { return nil }
            return data
        }
    }

    /// The UTF-8 text of the file at `path`, or `nil`.
    public func text(atPath path: String) -> String? {
        contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether anything (file, directory or link) exists at `path`, without following links.
    public func itemExists(atPath path: String) -> Bool {
        lock.withLock { storage.nodes[Self.normalized(path)] != nil }
    }

    /// Whether `path` is a symbolic link.
    public func isSymbolicLink(atPath path: String) -> Bool {
        lock.withLock {
            if case .symbolicLink? = storage.nodes[Self.normalized(path)] { return true }
            return false
        }
    }

    /// The names in the directory at `path`, sorted.
    public func contentsOfDirectory(atPath path: String) -> [String] {
        lock.withLock { children(of: Self.normalized(path)) }
    }

    /// Runs `body` holding `lock`, keeping its typed error.
    func locked<Result>(_ body: () throws(FileSystemError) -> Result) throws(FileSystemError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Removes whatever is at `path`, without following links or checking failures.
    func removeNode(atPath path: String) {
        lock.withLock { storage.nodes[Self.normalized(path)] = nil }
    }

    // MARK: Helpers (called with `lock` held)

    /// `path` without `.` and `..` components, repeated or trailing slashes.
    static func normalized(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty, components.last != ".." { components.removeLast() } else if !path.hasPrefix("/") { components.append(component) }
            default: components.append(component)
            }
        }
        let joined = components.joined(separator: "/")
        if path.hasPrefix("/") { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    static func parent(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    func children(of directory: String) -> [String] {
        let prefix = directory == "/" ? "/" : directory + "/"
        return storage.nodes.keys
            .filter { $0 != directory && $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count)) }
            .sorted()
    }

    private func createParents(of path: String) {
        var parent = Self.parent(of: path)
        var missing: [String] = []
        while parent != "/", parent != ".", storage.nodes[parent] == nil {
            missing.append(parent)
            parent = Self.parent(of: parent)
        }
        for directory in missing { storage.nodes[directory] = .directory }
    }

    func newStamp(size: Int) -> FileStamp {
        storage.clock += 1
        storage.nextInode += 1
        return FileStamp(
            device: device, inode: storage.nextInode, size: Int64(size),
            modifiedSeconds: storage.clock / 1_000_000_000, modifiedNanoseconds: storage.clock % 1_000_000_000
        )
    }

    /// `path` with symbolic links on its last component followed (at most 40).
    func resolved(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard case let .symbolicLink(target)? = storage.nodes[current] else { return current }
            current = target.hasPrefix("/") ? Self.normalized(target) : Self.normalized((Self.parent(of: current) as NSString).appendingPathComponent(target))
        }
        return current
    }

    /// Throws the injected failure for `operation` on any of `paths`, if there is one.
    func check(_ operation: Operation, _ paths: String...) throws(FileSystemError) {
        for index in storage.failures.indices {
            let failure = storage.failures[index]
            guard failure.operation == operation, failure.remaining != 0 else { continue }
            let applies = paths.contains { path in
                failure.path == "/" || path == failure.path || path.hasPrefix(failure.path + "/")
            }
            guard applies else { continue }
            if let remaining = failure.remaining { storage.failures[index].remaining = remaining - 1 }
            throw FileSystemError(failure.code, operation.systemCallName)
        }
    }

    /// Checks that the directory holding `path` exists: `ENOENT` or `ENOTDIR` otherwise.
    func checkParent(of path: String, _ operation: String) throws(FileSystemError) {
        let parent = Self.parent(of: path)
        guard parent != "." else { return }
        switch storage.nodes[resolved(parent)] {
        case .directory?: return
        case nil: throw FileSystemError(ENOENT, operation)
        case .file?, .symbolicLink?: throw FileSystemError(ENOTDIR, operation)
        }
    }

    /// Whether a directory on the way to `path` is a file (`stat` then says `ENOTDIR`).
    func parentExists(of path: String) -> Bool {
        let parent = Self.parent(of: path)
        if parent == "." { return true }
        if case .directory? = storage.nodes[resolved(parent)] { return true }
        return false
    }
}
