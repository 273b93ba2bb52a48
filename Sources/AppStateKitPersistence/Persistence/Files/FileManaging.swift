import AppStateKitCore
import Foundation

/// The file operations of AppState's `FileManaging`, behind the `\.fileManager` dependency that
/// ``Application/FileState`` reads and writes through.
///
/// `FileManager` conforms: its FileState files are written atomically (temporary file, `fsync`,
/// `rename`) with mode `0600` in `0700` directories. Isolated applications use one that maps
/// every path into a temporary directory; `AppStateKitTesting`'s `InMemoryFileSystem` keeps
/// files in memory and fails on request.
///
/// A file manager of your own (a mock, an encrypting one) is honoured: FileState reads with
/// ``in(path:filename:)`` on every read (keeping nothing it couldn't validate), writes with
/// ``out(_:path:filename:base64Encoded:)``, deletes with ``delete(path:filename:)``, and never
/// touches the declared paths itself. Its `in` says "no file" by throwing
/// `CocoaError(.fileReadNoSuchFile)`, `POSIXError(.ENOENT)` or a ``PersistenceError`` with
/// `errno` `ENOENT`; every other error is surfaced (``Application/FileState/read()`` throws it,
/// the `value` getter reports it). The default implementations act on the real file system.
public protocol FileManaging: Sendable {
    /// Removes the file or directory at `path`.
    func removeItem(atPath path: String) throws

    /// Reads and decodes the value that a ``Application/FileState`` stored at `path/filename`,
    /// JSON or base64-encoded JSON.
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
    /// - Throws: ``PersistenceError``: `ioFailure` with `errno` `ENOENT` when there is no file,
    ///   `corruptData` when it doesn't decode, and the kinds of a failed read.
    public func `in`<Value: Decodable>(path: String, filename: String) throws -> Value {
        let filePath = Self.filePath(path, filename)
        return try FileStateCodec.decode(try existingContents(ofFile: filePath), as: Value.self, path: filePath)
    }

    /// Encodes and writes `value` to `path/filename` atomically.
    public func out<Value: Encodable>(_ value: Value, path: String, filename: String, base64Encoded: Bool = true) throws {
        let filePath = Self.filePath(path, filename)
        try atomicFiles.writeAtomically(try FileStateCodec.encode(value, base64Encoded: base64Encoded, path: filePath), toFile: filePath)
    }

    /// The contents of the file `path/filename`, base64-decoded when they are valid base64, as
    /// AppState's internal helper of that name reads them.
    func data(path: String = ".", filename: String) throws -> Data {
        let contents = try existingContents(ofFile: Self.filePath(path, filename))
        return Data(base64Encoded: contents) ?? contents
    }

    /// Writes `data` (base64-encoded when `base64Encoded`) to `path/filename` atomically, as
    /// AppState's internal helper of that name does.
    func out(data: Data, path: String = ".", filename: String, base64Encoded: Bool = true) throws {
        try atomicFiles.writeAtomically(base64Encoded ? data.base64EncodedData() : data, toFile: Self.filePath(path, filename))
    }

    /// Removes the file `path/filename` — for a symbolic link the link itself, never the file it
    /// points to (as `rm` and `FileManager.removeItem` do); does nothing when there is none.
    public func delete(path: String, filename: String) throws {
        try atomicFiles.removeFile(Self.filePath(path, filename))
    }

    private static func filePath(_ path: String, _ filename: String) -> String {
        (path as NSString).appendingPathComponent(filename)
    }

    /// Throws ``PersistenceError/Kind/ioFailure`` with `errno` `ENOENT` when there is no file.
    private func existingContents(ofFile filePath: String) throws -> Data {
        guard let contents = try atomicFiles.contents(ofFile: filePath) else {
            throw PersistenceError(.ioFailure, errno: ENOENT, subject: filePath, detail: "there is no such file")
        }
        return contents
    }

    /// The files FileState can examine itself: `FileManager`'s (the real ones), an isolated
    /// application's sandbox, a file system in memory; `nil` for a file manager of the user's.
    package var localFiles: LocalFiles? {
        switch self {
        case is FileManager: LocalFiles.real
        case let sandbox as SandboxFileManager: sandbox.files
        case let fileSystem as any FileSystem: LocalFiles(fileSystem: fileSystem, sandbox: nil, isDurable: true)
        default: nil
        }
    }

    /// The files the default implementations act on: ``localFiles``, or the real ones.
    package var atomicFiles: LocalFiles { localFiles ?? LocalFiles.real }
}

extension FileManager: FileManaging {}
