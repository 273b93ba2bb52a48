import AppStateKitCore
import Foundation

/// The format of a ``FileKeyValueStore``'s log, the `.log` file beside the store's file that each
/// committed batch of changes is appended to.
///
/// The log starts with a 16-byte header: 8 bytes of magic naming the frame version and an 8-byte
/// random *epoch*, new each time the log is replaced, so a reader can tell one log from the next
/// even when the file system reuses the inode. Each record then holds one batch:
///
/// | bytes | content |
/// |---|---|
/// | 4 | payload length, little-endian |
/// | 4 | CRC-32, little-endian: version 2 (`ASKLOG2\n`) of the length's 4 bytes and the payload; version 1 (`ASKLOG1\n`) of the payload alone |
/// | n | payload: a JSON object of the batch's keys, each a tagged value or `null` (removed) |
///
/// This version creates version-2 logs and reads both. A version-1 log (an earlier AppStateKit
/// wrote it) is folded into the file by the first write, which then starts a version-2 log; so
/// no version-1 frame is ever appended, and a record's length is checked in every new record.
///
/// The store's value is its file (the *snapshot*) with every record of the log applied in
/// order. Applying a record twice changes nothing, so a crash between the two renames of a
/// compaction (snapshot first, then an empty log) loses nothing.
enum StoreLog {
    /// The magic of a version-1 log: its checksum covers the payload only.
    static let magicVersion1 = Array("ASKLOG1\n".utf8)
    /// The magic of the logs this version writes: the checksum also covers the length.
    static let magic = Array("ASKLOG2\n".utf8)
    /// The header's length: magic and epoch.
    static let headerLength = 16
    /// The length of a record's frame before its payload.
    static let frameLength = 8

    static func newHeader() -> Data {
        var header = Data(magic)
        withUnsafeBytes(of: UInt64.random(in: 1...UInt64.max).littleEndian) { header.append(contentsOf: $0) }
        return header
    }

    /// The frame version of `header` (1 or 2), or `nil` when it is not a log header.
    static func version(ofHeader header: Data) -> Int? {
        guard header.count >= headerLength else { return nil }
        let prefix = header.prefix(magic.count)
        if prefix.elementsEqual(magic) { return 2 }
        if prefix.elementsEqual(magicVersion1) { return 1 }
        return nil
    }

    /// The epoch in `header`, or `nil` when it is not a log header.
    static func epoch(ofHeader header: Data) -> UInt64? {
        guard version(ofHeader: header) != nil else { return nil }
        return header.withUnsafeBytes { bytes in
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: magic.count, as: UInt64.self))
        }
    }

    /// One batch: each changed key's new entry, `nil` for a removed key.
    typealias Batch = [String: StoreEntry?]

    /// A version-2 record of `batch`.
    static func record(_ batch: Batch) throws -> Data {
        let payload = try JSONCoders.encoder().encode(batch)
        var record = Data(capacity: frameLength + payload.count)
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { record.append(contentsOf: $0) }
        record.append(contentsOf: [0, 0, 0, 0])
        record.append(payload)
        let checksum = record.withUnsafeBytes { frameChecksum($0, length: payload.count, version: 2) }
        withUnsafeBytes(of: checksum.littleEndian) { record.replaceSubrange(4..<8, with: $0) }
        return record
    }

    /// The checksum a record starting at `record` (frame and payload of `length` bytes) must carry.
    private static func frameChecksum(_ record: UnsafeRawBufferPointer, length: Int, version: Int) -> UInt32 {
        let payload = UnsafeRawBufferPointer(rebasing: record[frameLength..<(frameLength + length)])
        guard version >= 2 else { return checksum(payload) }
        return checksum(payload, initial: checksum(UnsafeRawBufferPointer(rebasing: record[0..<4]), finishing: false))
    }

    struct Scan {
        /// The complete records, in order (those after a damaged stretch included).
        var batches: [Batch] = []
        /// How many bytes the readable log takes: where the next record starts. Bytes past it
        /// are a torn tail, cut off by the next append.
        var consumed = 0
        /// Whether bytes past `consumed` are provably a torn tail: all zero, or a prefix of one
        /// record (an append in progress, or one a crash interrupted: no writer was told it
        /// succeeded).
        var hasTornTail = false
        /// What is damaged, when bytes are neither records nor a torn tail: corruption. The
        /// next write keeps the whole log aside before it replaces it. (The keys a damaged
        /// record still shows are in `batches`, in its place, as damaged entries.)
        var corruption: String?
    }

    /// The largest record a scan accepts (a longer declared length is damage, never allocated).
    static let maximumRecordLength = 1 << 30

    /// Reads the records in `data` (which starts at a record boundary, at file offset `base`) of
    /// a log of frame `version`.
    ///
    /// Bytes that are all zero (a file system that extended the file but lost the data in a
    /// crash), an incomplete frame header, or a record that runs past the end whose payload so
    /// far is JSON text form a torn tail. Anything else that is not a record is corruption:
    /// the scan reports where, names the keys the damaged record still shows, and goes on
    /// with the next offset where a whole record checks out.
    static func scan(_ data: Data, base: Int, version: Int = 2) -> Scan {
        var scan = Scan()
        scan.consumed = base
        var damage: [String] = []
        data.withUnsafeBytes { bytes in
            var offset = 0
            var damagedFrom: Int?
            func endDamage(at end: Int) {
                guard let start = damagedFrom else { return }
                damagedFrom = nil
                damage.append("bytes \(base + start)..<\(base + end) are not a record")
                if let salvaged = salvageKeys(from: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), at: base + start) {
                    scan.batches.append(salvaged)
                }
            }
            while offset < bytes.count {
                if damagedFrom == nil {
                    switch Self.record(in: bytes, at: offset, version: version) {
                    case let .record(batch, end):
                        scan.batches.append(batch)
                        offset = end
                        scan.consumed = base + offset
                        continue
                    case .tornTail:
                        scan.hasTornTail = true
                        return
                    case .damaged:
                        damagedFrom = offset
                        offset += 1
                    }
                } else {
                    // Look for the next record that checks out.
                    if case let .record(batch, end) = Self.record(in: bytes, at: offset, version: version, strict: true) {
                        endDamage(at: offset)
                        scan.batches.append(batch)
                        offset = end
                        scan.consumed = base + offset
                    } else {
                        offset += 1
                    }
                }
            }
            endDamage(at: bytes.count)
            scan.consumed = base + bytes.count
        }
        if !damage.isEmpty { scan.corruption = damage.joined(separator: "; ") }
        return scan
    }

    private enum Frame {
        case record(Batch, end: Int)
        case tornTail
        case damaged
    }

    /// What starts at `offset`; `strict` (looking past damage) accepts only a whole record.
    private static func record(in bytes: UnsafeRawBufferPointer, at offset: Int, version: Int, strict: Bool = false) -> Frame {
        let remaining = bytes.count - offset
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        if remaining < frameLength {
            return strict ? .damaged : .tornTail  // a frame header cut short
        }
        if !strict, rest.allSatisfy({ $0 == 0 }) { return .tornTail }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        let checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        guard length <= maximumRecordLength else { return .damaged }
        let end = offset + frameLength + length
        // Past damage, most offsets fail here, before a checksum is computed.
        if strict, end > bytes.count || length < 2 || bytes[offset + frameLength] != UInt8(ascii: "{") || bytes[end - 1] != UInt8(ascii: "}") {
            return .damaged
        }
        if end > bytes.count {
            // A torn append: what made it to the disk is JSON text (no control characters), maybe
            // followed by zeros the file system extended the file with.
            if strict { return .damaged }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + frameLength)...])
            guard isPlausiblePayloadPrefix(payload) else { return .damaged }
            // A whole payload is no prefix of a longer one (the encoder writes one object): the
            // length is what is damaged.
            let prefix = Data(payload)
            let whole = (try? ReadLimits.checkNesting(prefix, path: "")) != nil
                && (try? JSONCoders.decoder().decode([String: RawJSONValue].self, from: prefix)) != nil
            return whole ? .damaged : .tornTail
        }
        let record = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
        guard frameChecksum(record, length: length, version: version) == checksum else {
            // A last record that is JSON text up to zeros the crash never wrote is torn too.
            if !strict, end == bytes.count, isPlausiblePayloadPrefix(UnsafeRawBufferPointer(rebasing: record[frameLength...])),
               record[frameLength...].contains(0) {
                return .tornTail
            }
            return .damaged
        }
        do {
            let payload = Data(record[frameLength...])
            try ReadLimits.checkNesting(payload, path: "")
            return .record(try JSONCoders.decoder().decode(Batch.self, from: payload), end: end)
        } catch {
            return .damaged
        }
    }

    /// Whether `bytes` can be the start of a payload: `{`, then JSON text (the encoder escapes
    /// every control character), where zeros stand only for data a crash lost: to the end, or
    /// in runs of at least a disk sector (a single flipped bit never makes one).
    private static func isPlausiblePayloadPrefix(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var text = bytes.count
        while text > 0, bytes[text - 1] == 0 { text -= 1 }
        guard text > 0 else { return true }
        guard bytes[0] == UInt8(ascii: "{") else { return false }
        var zeros = 0
        for index in 1..<text {
            let byte = bytes[index]
            if byte == 0 {
                zeros += 1
                continue
            }
            if zeros > 0, zeros < 512 { return false }
            zeros = 0
            if byte < 0x20 || byte == 0x7F { return false }
        }
        return true
    }

    /// The keys of the damaged record at the start of `bytes`, when its payload still reads as a
    /// batch: each becomes a damaged entry, kept (and reported) until that key is written.
    private static func salvageKeys(from bytes: UnsafeRawBufferPointer, at offset: Int) -> Batch? {
        guard bytes.count > frameLength else { return nil }
        var payload = Data(bytes[frameLength...])
        // The payload ends where its JSON object does; the damaged length can't say where.
        guard let close = payload.lastIndex(of: UInt8(ascii: "}")) else { return nil }
        payload = payload[payload.startIndex...close]
        guard (try? ReadLimits.checkNesting(payload, path: "")) != nil,
              let object = try? JSONCoders.decoder().decode([String: RawJSONValue].self, from: payload), !object.isEmpty else { return nil }
        var keys: Batch = [:]
        for (key, raw) in object {
            keys[key] = .damaged(
                .object(["unverifiedLogRecord": raw]),
                problem: "the log record at byte \(offset) that wrote it is damaged (its bytes are kept in the log's .corrupt- copy)"
            )
        }
        return keys
    }

    static func apply(_ batches: [Batch], to entries: inout [String: StoreEntry]) {
        for batch in batches {
            for (key, entry) in batch { entries[key] = entry }
        }
    }

    /// The CRC-32 (IEEE 802.3, zlib's and PNG's) of `bytes`, continuing from `initial` (the
    /// unfinished CRC of the bytes before them), finished unless `finishing` is `false`.
    static func checksum(_ bytes: UnsafeRawBufferPointer, initial: UInt32 = 0xFFFF_FFFF, finishing: Bool = true) -> UInt32 {
        var crc = initial
        crcTable.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return finishing ? crc ^ 0xFFFF_FFFF : crc
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
