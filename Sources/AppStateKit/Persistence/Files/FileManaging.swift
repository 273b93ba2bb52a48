import Foundation

/// The file-system operations ``Application/FileState`` performs.
///
/// `FileManager` conforms. Replace the `\.fileManager` dependency to redirect or fake file access.
public protocol FileManaging: Sendable {
    /// Removes the file or directory at `path`.
    func removeItem(atPath path: String) throws
    /// Reads and decodes the value that a ``Application/FileState`` stored at `path/filename`.
    ///
    /// Both encodings FileState writes are accepted: JSON and base64-encoded JSON.
    func `in`<Value: Decodable>(path: String, filename: String) throws -> Value
}
