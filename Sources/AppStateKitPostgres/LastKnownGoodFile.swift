#if PostgreSQL
import AppStateKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The store's durable copy of its last snapshot (``PostgresSyncStore/Configuration/lastKnownGoodFile``).
///
/// The file is JSON: the table, the namespace, when it was saved, and every record with its
/// value as JSON text. It is written to a temporary file beside it (owner-only permissions),
/// flushed to disk, renamed over the old one and the folder flushed, so a crash leaves the old
/// copy or the new one, never a mix.
struct LastKnownGoodFile: Sendable {
    let url: URL

    struct Contents: Codable, Sendable {
        struct Record: Codable, Sendable {
            var key: String
            var value: String?
            var version: Int64
        }

        var format: Int
        var table: String
        var namespace: String
        var savedAt: Date
        var records: [Record]
    }

    /// Writes `records` as the copy of `table`/`namespace`.
    func save(_ records: [SyncRecord], table: String, namespace: String) throws {
        let contents = Contents(
            format: 1, table: table, namespace: namespace, savedAt: Date(),
            records: records.sorted { $0.key < $1.key }.map {
                Contents.Record(key: $0.key, value: $0.value.map { String(decoding: $0, as: UTF8.self) }, version: $0.version)
            }
        )
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(contents)
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.posixError("create \(temporary.path)") }
        do {
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw Self.posixError("write \(temporary.path)")
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else { throw Self.posixError("fsync \(temporary.path)") }
            close(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, url.path) == 0 else {
            let error = Self.posixError("rename to \(url.path)")
            unlink(temporary.path)
            throw error
        }
        let folderDescriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            defer { close(folderDescriptor) }
            guard fsync(folderDescriptor) == 0 else { throw Self.posixError("fsync \(folder.path)") }
        }
    }

    /// The copy, or `nil` when there is none.
    ///
    /// - Throws: When the file exists but cannot be read or decoded, or holds another table's or
    ///   namespace's records.
    func load(table: String, namespace: String) throws -> (savedAt: Date, records: [SyncRecord])? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let contents = try decoder.decode(Contents.self, from: data)
        guard contents.format == 1, contents.table == table, contents.namespace == namespace else {
            throw SyncStoreError(.corruptRecord, key: "", detail: "the last-known-good file \(url.path) holds table \(contents.table), namespace \"\(contents.namespace)\" (format \(contents.format)), not table \(table), namespace \"\(namespace)\"; it is ignored")
        }
        return (contents.savedAt, contents.records.map { SyncRecord(key: $0.key, value: $0.value.map { Data($0.utf8) }, version: $0.version) })
    }

    private static func posixError(_ action: String) -> any Error {
        SyncStoreError(.ioFailure, key: "", detail: "could not \(action): \(String(cString: strerror(errno)))")
    }
}
#endif
