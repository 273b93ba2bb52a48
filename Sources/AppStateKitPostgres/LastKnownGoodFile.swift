#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The store's durable copy of its last snapshot (``PostgresSyncStore/Configuration/lastKnownGoodFile``).
///
/// The file is one header line, `appstatekit-last-known-good 2 fnv1a64=<16 hex digits>`, then
/// JSON: the table, the namespace, when it was saved, and every record with its value as JSON
/// text. The checksum (64-bit FNV-1a of the JSON) catches any change confined to a byte, so a
/// flipped bit anywhere makes the copy damaged: reported and not served. It is written to a
/// temporary file beside it (owner-only permissions), flushed to disk, renamed over the old one
/// and the folder flushed, so a crash leaves the old copy or the new one, never a mix; stray
/// temporary files older than a minute are removed at each save.
///
/// It is read only when it is a regular file (no link followed) owned by the effective user,
/// with no permission for group or others, and at most ``maxBytes`` long; otherwise it is
/// refused with a message that says why.
package struct LastKnownGoodFile: Sendable {
    package let url: URL
    /// Where saves run: blocking file I/O off the cooperative pool, one save at a time.
    let queue = DispatchQueue(label: "AppStateKitPostgres.LastKnownGoodFile")

    /// The largest copy saved or read: 256 MiB.
    package static let maxBytes = 256 << 20
    static let magic = "appstatekit-last-known-good 2 fnv1a64="
    /// How old a temporary file must be before a save removes it as a stray (another save in
    /// progress, by another process sharing the path, is younger).
    package static let strayAge: TimeInterval = 60

    /// The copy at `url`.
    package init(url: URL) {
        self.url = url
    }

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

    /// A loaded copy: the records that passed every check, and the damaged ones (key, reason).
    package struct Loaded: Sendable {
        package var savedAt: Date
        package var records: [SyncRecord]
        package var damaged: [(key: String, reason: String)]
    }

    /// Writes `records` as the copy of `table`/`namespace`.
    package func save(_ records: [SyncRecord], table: String, namespace: String) throws {
        let data = try Self.encode(records, table: table, namespace: namespace, savedAt: Date())
        guard data.count <= Self.maxBytes else {
            throw SyncStoreError(.valueTooLarge, key: "", detail: "the last-known-good copy would have \(data.count) bytes, more than \(Self.maxBytes); it was not saved")
        }
        let folder = url.deletingLastPathComponent()
        removeStrayTemporaries()
        let temporary = folder.appendingPathComponent("\(Self.temporaryPrefix(of: url))\(UInt32.random(in: 0...UInt32.max)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Self.posixError("create \(temporary.path)") }
        do {
            // The mode is 0600 whatever the umask.
            guard fchmod(descriptor, 0o600) == 0 else { throw Self.posixError("set the mode of \(temporary.path)") }
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

    /// The start of a temporary file's name for the copy at `url`.
    package static func temporaryPrefix(of url: URL) -> String {
        ".\(url.lastPathComponent).lkg-tmp-"
    }

    /// Removes this copy's temporary files older than ``strayAge`` (left by a crash during a
    /// save). `unlink` removes a link itself, never what it points to.
    package func removeStrayTemporaries(now: Date = Date()) {
        let folder = url.deletingLastPathComponent()
        let prefix = Self.temporaryPrefix(of: url)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let path = folder.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let modified = Double(info.st_mtim.tv_sec)
            if now.timeIntervalSince1970 - modified >= Self.strayAge {
                unlink(path)
            }
        }
    }

    /// The copy, or `nil` when there is none.
    ///
    /// - Throws: When the file is not a regular file owned by this user with mode 0600 (or
    ///   stricter), is larger than ``maxBytes``, cannot be read, fails its checksum or does not
    ///   decode, or holds another table's or namespace's records.
    package func load(table: String, namespace: String) throws -> Loaded? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw refusal("it is a symbolic link") }
            throw Self.posixError("open \(url.path)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Self.posixError("fstat \(url.path)") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw refusal("it is not a regular file") }
        guard info.st_uid == geteuid() else { throw refusal("it is owned by user id \(info.st_uid), not by this process's user (\(geteuid()))") }
        guard info.st_mode & 0o077 == 0 else {
            throw refusal("its mode is \(String(info.st_mode & 0o777, radix: 8)), which lets other users read or change it; it must be 600")
        }
        guard info.st_size <= Self.maxBytes else { throw refusal("it has \(info.st_size) bytes, more than \(Self.maxBytes)") }
        var data = Data(count: Int(info.st_size))
        let count = data.count
        let read = try data.withUnsafeMutableBytes { buffer -> Int in
            var offset = 0
            while offset < count {
                let got = Glibc.read(descriptor, buffer.baseAddress! + offset, count - offset)
                if got < 0 {
                    if errno == EINTR { continue }
                    throw Self.posixError("read \(url.path)")
                }
                if got == 0 { break }
                offset += got
            }
            return offset
        }
        guard read == count else { throw refusal("it changed while it was read") }
        do {
            return try Self.decode(data, table: table, namespace: namespace)
        } catch let damage as Damage {
            throw SyncStoreError(.corruptRecord, key: "", detail: "the last-known-good file \(url.path) is damaged (\(damage.reason)); it is not served, and the next snapshot replaces it")
        }
    }

    private func refusal(_ why: String) -> SyncStoreError {
        SyncStoreError(.refused, key: "", detail: "the last-known-good file \(url.path) is refused: \(why). Remove it (the next snapshot writes a new one, a regular file with mode 600 owned by the service's user)")
    }

    /// Why a copy does not decode.
    package struct Damage: Error, Sendable {
        package var reason: String
    }

    /// The file's bytes for `records`.
    package static func encode(_ records: [SyncRecord], table: String, namespace: String, savedAt: Date) throws -> Data {
        let contents = Contents(
            format: 2, table: table, namespace: namespace, savedAt: savedAt,
            records: records.sorted { $0.key < $1.key }.map {
                Contents.Record(key: $0.key, value: $0.value.map { String(decoding: $0, as: UTF8.self) }, version: $0.version)
            }
        )
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let body = try encoder.encode(contents)
        return Data((magic + hex(fnv1a64(body)) + "\n").utf8) + body
    }

    /// The copy `data` holds, with its damaged records apart; a pure function of its arguments
    /// that never traps.
    ///
    /// - Throws: ``Damage`` when the header, checksum or JSON is wrong, or `SyncStoreError` of
    ///   kind `corruptRecord` when the copy is another table's or namespace's.
    package static func decode(_ data: Data, table: String, namespace: String, now: Date = Date()) throws -> Loaded {
        guard data.count <= maxBytes else { throw Damage(reason: "it has \(data.count) bytes, more than \(maxBytes)") }
        guard let newline = data.firstIndex(of: UInt8(ascii: "\n")), newline - data.startIndex <= 80 else {
            throw Damage(reason: "it has no header line (a copy saved by an older AppStateKit has none)")
        }
        let header = data[data.startIndex..<newline]
        let body = data[(newline + 1)...]
        guard let headerText = String(validating: header, as: UTF8.self), headerText.hasPrefix(magic) else {
            throw Damage(reason: "its header is not \"\(magic)…\"")
        }
        guard String(headerText.dropFirst(magic.count)) == hex(fnv1a64(body)) else {
            throw Damage(reason: "its checksum does not match its contents")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let contents: Contents
        do {
            contents = try decoder.decode(Contents.self, from: Data(body))
        } catch {
            throw Damage(reason: "its JSON does not decode")
        }
        guard contents.format == 2, contents.table == table, contents.namespace == namespace else {
            throw SyncStoreError(.corruptRecord, key: "", detail: "the last-known-good copy holds table \(SyncInputBounds.escapedPrefix(contents.table)), namespace \"\(SyncInputBounds.escapedPrefix(contents.namespace))\" (format \(contents.format)), not table \(table), namespace \"\(namespace)\"; it is ignored")
        }
        guard abs(contents.savedAt.timeIntervalSince(now)) <= Double(SyncInputBounds.timeWindowMicroseconds) / 1_000_000 else {
            throw Damage(reason: "its time of saving is more than 100 years from now")
        }
        var records: [SyncRecord] = []
        var damaged: [(key: String, reason: String)] = []
        for record in contents.records {
            let value = record.value.map { Data($0.utf8) }
            do {
                try SyncLimits.check(key: record.key, value: value)
            } catch let error as SyncStoreError {
                damaged.append((record.key, error.detail))
                continue
            }
            guard SyncInputBounds.isValid(version: record.version) else {
                damaged.append((record.key, "its version \(record.version) is outside 1…\(SyncInputBounds.maxVersion)"))
                continue
            }
            records.append(SyncRecord(key: record.key, value: value, version: record.version))
        }
        return Loaded(savedAt: contents.savedAt, records: records, damaged: damaged)
    }

    /// 64-bit FNV-1a: any change confined to one byte changes it (each step is a bijection of
    /// the state for a given byte).
    package static func fnv1a64(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func posixError(_ action: String) -> any Error {
        SyncStoreError(.ioFailure, key: "", detail: "could not \(action): \(String(cString: strerror(errno)))")
    }
}
#endif
