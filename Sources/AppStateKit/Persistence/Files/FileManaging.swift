import Foundation

/// The file-system operations ``Application/FileState`` performs, behind the `\.fileManager`
/// dependency.
///
/// `FileManager` conforms with the default implementations, which write atomically (temporary
/// file, `fsync`, `rename`) with mode `0600` files in `0700` directories, and write through
/// symbolic links to the files they point to. Replace the dependency to redirect or fake file
/// access — isolated applications use one that maps every path into a temporary directory, and
/// `AppStateKitTesting`'s `InMemoryFileSystem` keeps files in memory and fails on request.
public protocol FileManaging: Sendable {
    /// Removes the file or directory at `path`.
    func removeItem(atPath path: String) throws

    /// Reads and decodes the value that a ``Application/FileState`` stored at `path/filename`.
    ///
    /// Both encodings FileState writes are accepted: JSON and base64-encoded JSON.
    func `in`<Value: Decodable>(path: String, filename: String) throws -> Value

    /// Encodes `value` as JSON (base64-encoded when `base64Encoded`) and writes it atomically
    /// to `path/filename`, creating the directory when missing.
    func out<Value: Encodable>(_ value: Value, path: String, filename: String, base64Encoded: Bool) throws

    /// Deletes the file `path/filename` (AppState's name for it); does nothing when there is none.
    ///
    /// ```swift
    /// try FileManager.default.delete(path: "/var/lib/tool", filename: "cache.json")
    /// ```
    func delete(path: String, filename: String) throws

    /// The contents of the file at `path`, or `nil` when there is none.
    func contents(ofFile path: String) throws -> Data?

    /// Replaces the file at `path` with `data` atomically.
    func writeAtomically(_ data: Data, toFile path: String) throws

    /// Replaces the file at `path` with `data` atomically and returns the new file's stamp, taken
    /// before the file was renamed into place — or `nil` when the implementation can't tell.
    ///
    /// ``Application/FileState`` caches the value it wrote under this stamp; with `nil` it reads
    /// the file back on the next access instead. (A stamp taken after the rename could belong to
    /// another process's replacement, and the cache would then hide that process's value.)
    /// The default implementation calls ``writeAtomically(_:toFile:)`` and returns `nil`;
    /// `FileManager` returns the stamp.
    func writeAtomicallyWithStamp(_ data: Data, toFile path: String) throws -> FileStamp?

    /// The stamp of the file at `path` (changes with every replacement), or `nil` when there is
    /// no file or it can't be examined.
    func stamp(ofFile path: String) -> FileStamp?

    /// The stamp of the file at `path`, or `nil` only when there is no file (`ENOENT`,
    /// `ENOTDIR`).
    ///
    /// ``Application/FileState`` reads through this, so a directory that can't be searched is
    /// reported instead of reading as "no file". The default implementation calls
    /// ``stamp(ofFile:)`` (which can't tell the two apart); `FileManager` throws a
    /// ``PersistenceError`` naming the path for every failure other than absence.
    func existingStamp(ofFile path: String) throws -> FileStamp?

    /// Moves the file at `path` to a `.corrupt-<time>` sibling and returns its new path.
    func moveAside(_ path: String) throws -> String

    /// Removes the file at `path`; does nothing when there is none.
    func removeFile(_ path: String) throws
}

extension FileManaging {
    /// Decodes the file at `path/filename` as JSON, or as base64-encoded JSON.
    public func `in`<Value: Decodable>(path: String, filename: String) throws -> Value {
        let filePath = (path as NSString).appendingPathComponent(filename)
        guard let data = try contents(ofFile: filePath) else {
            throw PersistenceError(.ioFailure, errno: ENOENT, subject: filePath, detail: "there is no such file")
        }
        return try FileStateCodec.decode(data, as: Value.self, path: filePath)
    }

    /// Encodes and writes `value` to `path/filename` atomically.
    public func out<Value: Encodable>(_ value: Value, path: String, filename: String, base64Encoded: Bool = true) throws {
        let filePath = (path as NSString).appendingPathComponent(filename)
        try writeAtomically(try FileStateCodec.encode(value, base64Encoded: base64Encoded, path: filePath), toFile: filePath)
    }

    /// Calls ``removeFile(_:)`` with `path/filename`.
    public func delete(path: String, filename: String) throws {
        try removeFile((path as NSString).appendingPathComponent(filename))
    }

    /// Reads the whole file.
    public func contents(ofFile path: String) throws -> Data? {
        try AtomicFileWriter.read(path)
    }

    /// Writes through a flushed temporary file and a rename.
    public func writeAtomically(_ data: Data, toFile path: String) throws {
        try AtomicFileWriter.write(data, to: path)
    }

    /// Calls ``writeAtomically(_:toFile:)``; the stamp is unknown.
    public func writeAtomicallyWithStamp(_ data: Data, toFile path: String) throws -> FileStamp? {
        try writeAtomically(data, toFile: path)
        return nil
    }

    /// The file's device, inode, size and modification time.
    public func stamp(ofFile path: String) -> FileStamp? {
        FileStamp.of(path: path)
    }

    /// Calls ``stamp(ofFile:)``.
    public func existingStamp(ofFile path: String) throws -> FileStamp? {
        stamp(ofFile: path)
    }

    /// Moves the file aside to a `.corrupt-<time>` sibling that did not exist.
    public func moveAside(_ path: String) throws -> String {
        try AtomicFileWriter.moveAside(path)
    }

    /// Unlinks the file (the link's target, for a symbolic link), ignoring a missing one.
    public func removeFile(_ path: String) throws {
        try AtomicFileWriter.remove(path)
    }
}

extension FileManager: FileManaging {
    /// Writes through a flushed temporary file and a rename, returning the written file's stamp.
    public func writeAtomicallyWithStamp(_ data: Data, toFile path: String) throws -> FileStamp? {
        try AtomicFileWriter.write(data, to: path)
    }

    /// The file's stamp, `nil` when it does not exist; throws for every other failure.
    public func existingStamp(ofFile path: String) throws -> FileStamp? {
        try FileStamp.ofExistingFile(atPath: path)
    }
}
