import Foundation

/// The format of a ``FileKeyValueStore``'s log, the `.log` file beside the store's file that each
/// committed batch of changes is appended to.
///
/// The log starts with a 16-byte header: the 8 bytes `ASKLOG1\n` and an 8-byte random
/// *epoch*, new each time the log is replaced, so a reader can tell one log from the next even
/// when the file system reuses the inode. Each record then holds one batch:
///
/// | bytes | content |
/// |---|---|
/// | 4 | payload length, little-endian |
/// | 4 | CRC-32 of the payload, little-endian |
/// | n | payload: a JSON object of the batch's keys, each a tagged value or `null` (removed) |
///
/// The store's value is its file (the *snapshot*) with every record of the log applied in
/// order. Applying a record twice changes nothing, so a crash between the two renames of a
/// compaction (snapshot first, then an empty log) loses nothing.
enum StoreLog {
    static let magic = Array("ASKLOG1\n".utf8)
    /// The header's length: magic and epoch.
    static let headerLength = 16
    /// The length of a record's frame before its payload.
    static let frameLength = 8

    static func newHeader() -> Data {
        var header = Data(magic)
        withUnsafeBytes(of: UInt64.random(in: 1...UInt64.max).littleEndian) { header.append(contentsOf: $0) }
        return header
    }

    /// The epoch in `header`, or `nil` when it is not a log header.
    static func epoch(ofHeader header: Data) -> UInt64? {
        guard header.count >= headerLength, header.prefix(magic.count).elementsEqual(magic) else { return nil }
        return header.withUnsafeBytes { bytes in
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: magic.count, as: UInt64.self))
        }
    }

    /// One batch: each changed key's new entry, `nil` for a removed key.
    typealias Batch = [String: StoreEntry?]

    static func record(_ batch: Batch) throws -> Data {
        let payload = try JSONCoders.encoder().encode(batch)
        var record = Data(capacity: frameLength + payload.count)
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { record.append(contentsOf: $0) }
        let checksum = payload.withUnsafeBytes { Self.checksum($0) }
        withUnsafeBytes(of: checksum.littleEndian) { record.append(contentsOf: $0) }
        record.append(payload)
        return record
    }

    struct Scan {
        /// The complete records, in order.
        var batches: [Batch] = []
        /// How many bytes the complete records take: where the next record starts.
        var consumed = 0
        /// Whether bytes past `consumed` form an incomplete record (an append in progress, or one a
        /// crash interrupted: no writer was told it succeeded); the next writer cuts it off.
        var hasTornTail = false
        /// Why the record at `consumed` is unreadable although more follows it: corruption.
        var corruption: String?
    }

    /// Reads the records in `data` (which starts at a record boundary, at file offset `base`).
    ///
    /// A record that runs past the end, a last record whose checksum fails, or bytes that are all
    /// zero (a file system that extended the file but lost the data in a crash) form a torn
    /// tail. A bad record followed by more bytes is corruption: reading stops there.
    static func scan(_ data: Data, base: Int) -> Scan {
        var scan = Scan()
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let remaining = bytes.count - offset
                if remaining < frameLength || bytes[offset...].allSatisfy({ $0 == 0 }) {
                    scan.hasTornTail = true
                    break
                }
                let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                let checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                let end = offset + frameLength + length
                if end > bytes.count {
                    scan.hasTornTail = true
                    break
                }
                let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + frameLength)..<end])
                guard Self.checksum(payload) == checksum else {
                    if end == bytes.count {
                        scan.hasTornTail = true
                    } else {
                        scan.corruption = "the record at byte \(base + offset) fails its checksum"
                    }
                    break
                }
                do {
                    scan.batches.append(try JSONCoders.decoder().decode(Batch.self, from: Data(payload)))
                } catch {
                    scan.corruption = "the record at byte \(base + offset) is not a batch of entries (\(shortDescription(of: error)))"
                    break
                }
                offset = end
            }
            scan.consumed = base + offset
        }
        return scan
    }

    static func apply(_ batches: [Batch], to entries: inout [String: StoreEntry]) {
        for batch in batches {
            for (key, entry) in batch { entries[key] = entry }
        }
    }

    /// The CRC-32 (IEEE 802.3, zlib's and PNG's) of a record's payload, so a record a crash cut
    /// short is told from a complete one.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        crcTable.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
