import Foundation

/// The content of a ``LocalSyncStore``'s file: one versioned record per key.
///
/// The file is JSON, one record per line so a person can read it:
///
/// ```json
/// {
///   "format" : 1,
///   "epoch" : "5F0C6A52-8D0B-4A4E-9C1D-2B7B0C1D9E11",
///   "sequence" : 42,
///   "records" : {
///     "App/flags" : {"version":41,"value":"{\"beta\":true}"},
///     "App/gone" : {"version":42,"value":null,"removedAt":1764316800}
///   }
/// }
/// ```
///
/// `epoch` names this file's lineage: a writer that finds no file (it was deleted, or a corrupt
/// one was moved aside) or a file without one starts a new, random epoch. A reader whose file
/// changes epoch, or whose sequence goes down within an epoch (an older copy was put back),
/// takes the new file as authoritative whatever its versions (see ``SyncChange/replaced(_:)``).
///
/// `value` holds the record's JSON text as a string (`null`: a tombstone); a value that is not
/// UTF-8 is kept exactly as `"base64"` instead. `sequence` is the highest version ever assigned
/// in the file: every commit takes the next one, so versions of a key only grow, even across a
/// damaged record whose own version can't be read — and across a tombstone collected from the
/// file, since collecting one leaves `sequence` (and `epoch`) as they are.
///
/// A tombstone's `removedAt` is when it was written (seconds since 1970); commits collect the
/// tombstones older than the store's retention (see ``collectTombstones(now:retention:keeping:)``).
/// A tombstone without one (written before tombstones were collected, or by an older
/// AppStateKit, which ignores the field) gets the time of the first commit that finds it.
///
/// Records are decoded one by one: a record that doesn't decode is kept byte for byte as a
/// ``Slot/damaged(_:)`` slot, so it damages only its own key.
struct LocalSyncFile: Sendable, Equatable {
    /// The file format this code reads and writes.
    static let format = 1

    /// What the file holds for one key.
    enum Slot: Sendable, Equatable {
        /// A record that decoded.
        case intact(SyncRecord)
        /// A record that didn't: kept as found and written back unchanged.
        case damaged(Damage)

        /// The slot's version, if it can be read.
        var version: Int64? {
            switch self {
            case let .intact(record): record.version
            case let .damaged(damage): damage.version
            }
        }
    }

    /// A record that doesn't decode.
    struct Damage: Sendable, Equatable {
        /// The record's JSON, re-serialised from what the file holds.
        var raw: Data
        /// Its version, if that part is readable.
        var version: Int64?
        /// What is wrong with it.
        var reason: String
    }

    /// Why the whole file can't be used.
    enum Unusable: Error, Sendable, Equatable {
        /// Not JSON, or not shaped like a store file: moved aside by the next write.
        case corrupt(String)
        /// Written by a newer AppStateKit; left alone (reads and writes fail).
        case unsupportedFormat(Int)
    }

    /// Every key's slot.
    var slots: [String: Slot] = [:]
    /// The highest version ever assigned in this file (at least every slot's version).
    var sequence: Int64 = 0
    /// The file's lineage (`nil`: no file, or one written before epochs existed).
    var epoch: String?
    /// When each tombstone whose time is known was written, in seconds since 1970, by key.
    var removedAt: [String: Int64] = [:]

    /// A new, random epoch.
    static func newEpoch() -> String {
        UUID().uuidString
    }

    /// Whether a reader that holds `self` must take `newer` as a replacement rather than
    /// compare versions: its epoch differs, or its sequence went down.
    func isReplaced(by newer: LocalSyncFile) -> Bool {
        newer.epoch != epoch || newer.sequence < sequence
    }

    /// The file of a store that has none yet.
    static let empty = LocalSyncFile()

    // MARK: Tombstones

    /// Records `record`, just committed, as the key's slot: a tombstone with the time `now`
    /// (seconds since 1970), a value without one.
    mutating func commit(_ record: SyncRecord, now: Int64) {
        slots[record.key] = .intact(record)
        removedAt[record.key] = record.value == nil ? now : nil
        sequence = max(sequence, record.version)
    }

    /// Removes the tombstones written `retention` seconds or more before `now` (seconds since
    /// 1970), except `key`'s, and gives the tombstones without a time the time `now`, so they
    /// go a retention later. `sequence` and `epoch` stay, so a later write of a collected key
    /// continues above every version the file ever held, and no reader takes the file as
    /// replaced.
    ///
    /// - Returns: The keys collected, sorted.
    @discardableResult
    mutating func collectTombstones(now: Int64, retention: Int64, keeping key: String) -> [String] {
        var collected: [String] = []
        for (candidate, slot) in slots where candidate != key {
            guard case let .intact(record) = slot, record.value == nil else { continue }
            guard let time = removedAt[candidate] else {
                removedAt[candidate] = now
                continue
            }
            // A time in the future (a clock set back) waits until the clock passes it.
            if now >= time, now - time >= retention {
                slots[candidate] = nil
                removedAt[candidate] = nil
                collected.append(candidate)
            }
        }
        return collected.sorted()
    }

    /// The removals a reader that holds `self` missed when `newer`, of the same lineage, no longer
    /// has a key that held a value (or a damaged record) here: its tombstone was written and
    /// collected between two reads. Each is a tombstone at `newer`'s sequence, which is at least
    /// the version of the tombstone collected and below any later write of the key.
    func missedRemovals(in newer: LocalSyncFile) -> [SyncRecord] {
        slots.keys.sorted().compactMap { key in
            guard newer.slots[key] == nil else { return nil }
            if case let .intact(record) = slots[key], record.value == nil { return nil }
            return SyncRecord(key: key, value: nil, version: newer.sequence)
        }
    }

    /// The records that decoded, sorted by key.
    var intactRecords: [SyncRecord] {
        slots.keys.sorted().compactMap { key in
            if case let .intact(record) = slots[key] { record } else { nil }
        }
    }

    // MARK: Decoding

    /// Decodes a file's bytes.
    ///
    /// - Throws: ``Unusable`` when the bytes are not a store file at all; damaged records
    ///   don't throw.
    static func decode(_ data: Data) throws(Unusable) -> LocalSyncFile {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .corrupt("not JSON (\(data.count) bytes): \(shortDescription(of: error))")
        }
        guard let top = object as? [String: Any] else {
            throw .corrupt("the top level is not a JSON object")
        }
        if let format = top["format"] {
            guard let number = format as? Int else { throw .corrupt("\"format\" is not an integer") }
            guard number <= Self.format else { throw .unsupportedFormat(number) }
        }
        guard let records = top["records"] as? [String: Any] else {
            throw .corrupt("\"records\" is missing or not a JSON object")
        }
        var file = LocalSyncFile()
        for (key, object) in records {
            let slot = try slot(key: key, decoding: object)
            file.slots[key] = slot
            // A time that isn't an integer is taken as unknown, like a missing one.
            if case let .intact(record) = slot, record.value == nil,
                let time = (object as? [String: Any])?["removedAt"] as? Int64 {
                file.removedAt[key] = time
            }
        }
        // A damaged or missing sequence is recovered from the versions it must exceed.
        let highest = file.slots.values.compactMap(\.version).max() ?? 0
        file.sequence = max(top["sequence"] as? Int64 ?? 0, highest)
        file.epoch = top["epoch"] as? String
        return file
    }

    /// Decodes one record, or keeps it as damaged.
    ///
    /// - Throws: ``Unusable/corrupt(_:)`` only if a damaged record can't be re-serialised (then
    ///   the whole file is kept aside rather than losing its bytes).
    private static func slot(key: String, decoding object: Any) throws(Unusable) -> Slot {
        let fields = object as? [String: Any]
        let version = (fields?["version"] as? Int64).flatMap { $0 > 0 ? $0 : nil }
        func damaged(_ reason: String) throws(Unusable) -> Slot {
            do {
                let raw = try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed, .sortedKeys])
                return .damaged(Damage(raw: raw, version: version, reason: reason))
            } catch {
                throw .corrupt("the damaged record of \"\(key)\" cannot be kept: \(error)")
            }
        }
        guard let fields else { return try damaged("the record is not a JSON object") }
        guard let version else { return try damaged("\"version\" is missing or not a positive integer") }
        switch (fields["value"], fields["base64"]) {
        case (let text as String, nil):
            return .intact(SyncRecord(key: key, value: Data(text.utf8), version: version))
        case (is NSNull, nil):
            return .intact(SyncRecord(key: key, value: nil, version: version))
        case (nil, let encoded as String):
            guard let bytes = Data(base64Encoded: encoded) else { return try damaged("\"base64\" is not valid base64") }
            return .intact(SyncRecord(key: key, value: bytes, version: version))
        default:
            return try damaged("the record needs exactly one of \"value\" (a string or null) and \"base64\" (a string)")
        }
    }

    // MARK: Encoding

    /// The file's bytes: damaged records are written back as they were found.
    func encoded() -> Data {
        var out = Data()
        out.append(contentsOf: "{\n  \"format\" : \(Self.format),\n".utf8)
        if let epoch {
            out.append(contentsOf: "  \"epoch\" : ".utf8)
            Self.appendString(epoch.utf8, to: &out)
            out.append(contentsOf: ",\n".utf8)
        }
        out.append(contentsOf: "  \"sequence\" : \(sequence),\n  \"records\" : {".utf8)
        var first = true
        for key in slots.keys.sorted() {
            out.append(contentsOf: (first ? "\n    " : ",\n    ").utf8)
            first = false
            Self.appendString(key.utf8, to: &out)
            out.append(contentsOf: " : ".utf8)
            switch slots[key]! {
            case let .intact(record):
                out.append(contentsOf: "{\"version\":\(record.version),".utf8)
                if let value = record.value {
                    if let text = String(validating: value, as: UTF8.self) {
                        out.append(contentsOf: "\"value\":".utf8)
                        Self.appendString(text.utf8, to: &out)
                    } else {
                        out.append(contentsOf: "\"base64\":\"\(value.base64EncodedString())\"".utf8)
                    }
                } else {
                    out.append(contentsOf: "\"value\":null".utf8)
                    if let time = removedAt[key] { out.append(contentsOf: ",\"removedAt\":\(time)".utf8) }
                }
                out.append(UInt8(ascii: "}"))
            case let .damaged(damage):
                out.append(damage.raw)
            }
        }
        out.append(contentsOf: (first ? "}\n}\n" : "\n  }\n}\n").utf8)
        return out
    }

    /// Appends `bytes` (valid UTF-8) as a JSON string literal.
    private static func appendString(_ bytes: some Sequence<UInt8>, to out: inout Data) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
