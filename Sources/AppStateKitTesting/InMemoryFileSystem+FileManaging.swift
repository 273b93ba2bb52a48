public import AppStateKit
public import Foundation

/// ``InMemoryFileSystem`` as the `\.fileManager` of file states: the same atomic writes,
/// symbolic-link handling and corrupt-file backups as `FileManager`, in memory.
extension InMemoryFileSystem: FileManaging {
    /// Removes the file, link or directory (with everything beneath it) at `path`.
    public func removeItem(atPath path: String) throws {
        let path = Self.normalized(path)
        guard itemExists(atPath: path) else {
            throw PersistenceError(.ioFailure, errno: ENOENT, subject: path, detail: "there is no such file")
        }
        for name in contentsOfDirectory(atPath: path) {
            try removeItem(atPath: (path as NSString).appendingPathComponent(name))
        }
        removeNode(atPath: path)
    }

    /// The whole file at `path`, or `nil` when there is none.
    public func contents(ofFile path: String) throws -> Data? {
        try AtomicFileWriter.read(path, in: self)
    }

    /// Replaces the file at `path` atomically.
    public func writeAtomically(_ data: Data, toFile path: String) throws {
        try AtomicFileWriter.write(data, to: path, in: self)
    }

    /// The stamp of the file at `path`, or `nil` when there is none; throws an injected failure.
    package func existingStamp(ofFile path: String) throws -> FileStamp? {
        try FileStamp.ofExistingFile(atPath: path, in: self)
    }

    /// Moves the file aside to a `.corrupt-<time>` sibling that did not exist.
    public func moveAside(_ path: String) throws -> String {
        try AtomicFileWriter.moveAside(path, in: self)
    }

    /// Removes the file (the link's target, for a symbolic link); does nothing when there is none.
    public func removeFile(_ path: String) throws {
        try AtomicFileWriter.remove(path, in: self)
    }
}

extension FileKeyValueStore {
    /// Creates a store whose file lives in the in-memory `fileSystem`, so tests can inject
    /// failures into it.
    ///
    /// ```swift
    /// let files = InMemoryFileSystem()
    /// let store = FileKeyValueStore(path: "/config/defaults.json", fileSystem: files)
    /// files.fail(.read, at: "/config/defaults.json", with: EIO)
    /// ```
    public convenience init(path: String, durability: Durability = .immediate, fileSystem: InMemoryFileSystem) {
        self.init(path: path, durability: durability, fileSystem: fileSystem as any FileSystem)
    }
}
