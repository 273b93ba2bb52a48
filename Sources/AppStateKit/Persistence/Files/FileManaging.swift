import Foundation

/// The file operations of AppState's `FileManaging`, behind the `\.fileManager` dependency that
/// ``Application/FileState`` reads and writes through.
///
/// `FileManager` conforms. Its ``Application/FileState`` files are written atomically
/// (temporary file, `fsync`, `rename`) with mode `0600` in `0700` directories, and through
/// symbolic links to the files they point to. Replace the dependency to redirect or fake file
/// access: isolated applications use one that maps every path into a temporary directory, and
/// `AppStateKitTesting`'s `InMemoryFileSystem` keeps files in memory and fails on request.
///
/// The operations FileState itself performs (atomic replacement, the stamps that tell it a file
/// changed, moving a corrupt file aside) are not part of this protocol. A file manager of your
/// own gets ``in(path:filename:)``, ``out(_:path:filename:base64Encoded:)`` and
/// ``delete(path:filename:)`` from the default implementations, and FileState uses the real
/// file system at the declared paths with it.
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
}

extension FileManaging {
    /// Decodes the file at `path/filename` as JSON, or as base64-encoded JSON.
    ///
    /// - Throws: ``PersistenceError``: ``PersistenceError/Kind/ioFailure`` with `errno`
    ///   `ENOENT` when there is no file, ``PersistenceError/Kind/corruptData`` when it doesn't
    ///   decode, and the kinds of a failed read.
    public func `in`<Value: Decodable>(path: String, filename: String) throws -> Value {
        let filePath = Self.filePath(path, filename)
        return try FileStateCodec.decode(try existingContents(ofFile: filePath), as: Value.self, path: filePath)
    }

    /// Encodes and writes `value` to `path/filename` atomically.
    public func out<Value: Encodable>(_ value: Value, path: String, filename: String, base64Encoded: Bool = true) throws {
        let filePath = Self.filePath(path, filename)
        try atomicFiles.writeAtomically(try FileStateCodec.encode(value, base64Encoded: base64Encoded, path: filePath), toFile: filePath)
    }

    /// The contents of the file `path/filename`, base64-decoded when they are valid base64 (as
    /// AppState reads them: what ``out(data:path:filename:base64Encoded:)`` wrote encoded comes
    /// back as it was given, and raw contents that happen to be valid base64 are decoded too).
    ///
    /// ```swift
    /// let payload = try FileManager.default.data(path: "/var/lib/tool", filename: "payload.bin")
    /// ```
    ///
    /// - Throws: ``PersistenceError``: ``PersistenceError/Kind/ioFailure`` with `errno` `ENOENT`
    ///   when there is no file, and the kinds of a failed read.
    public func data(path: String = ".", filename: String) throws -> Data {
        let contents = try existingContents(ofFile: Self.filePath(path, filename))
        return Data(base64Encoded: contents) ?? contents
    }

    /// Writes `data` (base64-encoded when `base64Encoded`) to `path/filename` atomically,
    /// creating the directory when missing.
    ///
    /// ```swift
    /// try FileManager.default.out(data: payload, path: "/var/lib/tool", filename: "payload.bin")
    /// ```
    public func out(data: Data, path: String = ".", filename: String, base64Encoded: Bool = true) throws {
        try atomicFiles.writeAtomically(base64Encoded ? data.base64EncodedData() : data, toFile: Self.filePath(path, filename))
    }

    /// Removes the file `path/filename` (the link's target, for a symbolic link); does nothing
    /// when there is none.
    public func delete(path: String, filename: String) throws {
        try atomicFiles.removeFile(Self.filePath(path, filename))
    }

    /// The file `filename` in the directory `path`.
    private static func filePath(_ path: String, _ filename: String) -> String {
        (path as NSString).appendingPathComponent(filename)
    }

    /// The contents of the file at `filePath`; throws ``PersistenceError/Kind/ioFailure`` with
    /// `errno` `ENOENT` when there is none.
    private func existingContents(ofFile filePath: String) throws -> Data {
        guard let contents = try atomicFiles.contents(ofFile: filePath) else {
            throw PersistenceError(.ioFailure, errno: ENOENT, subject: filePath, detail: "there is no such file")
        }
        return contents
    }

    /// The operations ``Application/FileState`` performs with this file manager: its own when it
    /// implements ``AtomicFileManaging`` (`FileManager`, an isolated application's sandbox,
    /// `InMemoryFileSystem`), otherwise the real file system's at the same paths (reported once
    /// per type, see `RealFiles.standing(in:)`).
    package var atomicFiles: any AtomicFileManaging {
        // The usual file managers first: a cast to a concrete type costs far less than finding
        // a conformance (every FileState read passes here).
        if let files = self as? FileManager { return files }
        if let files = self as? SandboxFileManager { return files }
        return self as? any AtomicFileManaging ?? RealFiles.standing(in: self)
    }
}

extension FileManager: FileManaging {}
