import AppStateKitCore
import AppStateKitPersistence
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
///     "App/flags" : {"version":41,"value":"{\"beta\":true}","crc":"a9e97e83"},
///     "App/gone" : {"version":42,"value":null,"removedAt":1764316800,"crc":"4ca83c7b"}
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
/// `crc` is the record's ``checksum(key:version:value:removedAt:)``; a record without one (written
/// by hand or before checksums) is taken as it is.
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
        /// Larger than the store's ``LocalSyncStore/maxFileBytes`` (`bytes`: at least this
        /// many): not read; the next write keeps it aside (a hard link, no copy) and starts a new
        /// file.
        case tooLarge(bytes: Int64, limit: Int)
    }

    /// Every key's slot.
    var slots: [String: Slot] = [:]
    /// The highest version ever assigned in this file (at least every slot's version).
    var sequence: Int64 = 0
    /// The file's lineage (`nil`: no file, or one written before epochs existed).
    var epoch: String?
    /// When each tombstone whose time is known was written, in seconds since 1970, by key.
    var removedAt: [String: Int64] = [:]
    /// What is wrong with the file as a whole without stopping it from being read (a sequence
    /// out of range, a key with two records), for the log.
    var problems: [String] = []
    /// Whether reading left out a record the file holds (the second record of a key), so the
    /// next commit must keep the file's bytes aside before it rewrites it.
    var droppedRecords = false

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
            // Times come from this process's clock or were checked when decoded (within 100
            // years of now); the subtraction is checked all the same.
            let (age, overflow) = now.subtractingReportingOverflow(time)
            if now >= time, !overflow, age >= retention {
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

    /// The highest version a record may have: 2^62, far above what any number of commits
    /// reaches (a million a second for 146,000 years), far enough below `Int64.max` that
    /// assigning the next version never overflows. A record above it is damaged; a file whose
    /// sequence reaches it is renumbered by the next commit (see ``renumbered()``).
    static let maxVersion: Int64 = 1 << 62

    /// How far from now a tombstone's `removedAt` may be: 100 years, in seconds. A time further
    /// away damages its record, so no arithmetic ever sees it.
    static let maxTimeDistance: Int64 = 100 * 366 * 24 * 3600

    /// `date` in whole seconds since 1970 (0 for a date no `Int64` can hold).
    static func seconds(_ date: Date) -> Int64 {
        Int64(exactly: date.timeIntervalSince1970.rounded(.down)) ?? 0
    }

    /// Whether `time` is within ``maxTimeDistance`` of `now` (both in seconds since 1970).
    static func isPlausible(time: Int64, now: Int64) -> Bool {
        let (distance, overflow) = time.subtractingReportingOverflow(now)
        return !overflow && distance.magnitude <= UInt64(maxTimeDistance)
    }

    /// A key from the file as messages show it: quoted, with control characters escaped (a key
    /// written by another program may hold newlines or terminal escapes), cut after 200
    /// characters.
    static func shown(_ key: String) -> String {
        (key.count > 200 ? String(key.prefix(200)) + "…" : key).debugDescription
    }

    /// Decodes a file's bytes; `now` (seconds since 1970) is what tombstone times are checked
    /// against.
    ///
    /// Nothing in the bytes can trap or recurse without bound (see ``LocalSyncJSON``). A record
    /// that is not what this code writes — a version outside 1 to ``maxVersion``, a `removedAt`
    /// more than 100 years from `now`, a value larger than ``SyncLimits/maxValueBytes``, a field
    /// of the wrong type, a number nothing can hold, a value nested too deeply — is a
    /// ``Slot/damaged(_:)`` slot of its key alone.
    ///
    /// - Throws: ``Unusable`` when the bytes are not a store file at all; damaged records
    ///   don't throw.
    static func decode(_ data: Data, now: Int64 = seconds(Date())) throws(Unusable) -> LocalSyncFile {
        var file = LocalSyncFile()
        try decode(data, now: now, into: &file)
        return file
    }

    /// What can be kept of bytes that ``decode(_:now:)`` rejects as corrupt: the records, epoch
    /// and sequence read before the point where the bytes stop being a store file (all of them
    /// for a file with garbage after its end, none for bytes that are not JSON at all). A
    /// commit that replaces a corrupt file starts from these, so a truncated or partly
    /// overwritten file loses only what the damage reached.
    static func salvage(_ data: Data, now: Int64) -> LocalSyncFile {
        var file = LocalSyncFile()
        do {
            try decode(data, now: now, into: &file)
            return file
        } catch {
            // The epoch and sequence, when they come before the damage, are in `file`; the
            // records are read again, skipping the damaged ones.
        }
        salvageRecords(data, now: now, into: &file)
        file.finish()
        return file
    }

    /// Reads every record of the `records` object that can be read, skipping damaged bytes: after
    /// bytes that don't parse, reading resumes at the next quote indented like a record line
    /// (three of the four bytes before it are spaces: ``encoded()`` writes one record per line,
    /// indented by four), so a flipped byte loses at most the record it hit, not the ones after
    /// it. When the `"records"` name itself is damaged, reading starts at the first such line.
    /// Bounded: all attempts together read at most four times the file, plus 64 KiB.
    private static func salvageRecords(_ data: Data, now: Int64, into file: inout LocalSyncFile) {
        var reader = LocalSyncJSON(data)
        file.slots = [:]
        file.removedAt = [:]
        if let found = reader.bytes.firstRange(of: Array("\"records\"".utf8)) {
            reader.position = found.upperBound
        }
        if (try? reader.expect(UInt8(ascii: ":"), "\":\"")) == nil || !reader.consume(UInt8(ascii: "{")) {
            guard let first = nextRecordStart(in: reader.bytes, after: -1) else { return }
            reader.position = first
        }
        var budget = 4 * reader.bytes.count + (64 << 10)
        while budget > 0 {
            reader.skipWhitespace()
            let start = reader.position
            do throws(LocalSyncJSON.SyntaxError) {
                if reader.consume(UInt8(ascii: "}")) || reader.isAtEnd { return }
                guard reader.bytes[reader.position] == UInt8(ascii: "\"") else { throw reader.error("expected a key") }
                let key = try reader.string()
                try reader.expect(UInt8(ascii: ":"), "\":\"")
                reader.skipWhitespace()
                let valueStart = reader.position
                let value = try reader.value(depth: 3)
                let raw = Data(reader.bytes[valueStart..<reader.position])
                let (slot, removedAt) = slot(key: key, decoding: value, raw: raw, now: now)
                file.insert(slot, forKey: key, removedAt: removedAt)
                budget -= reader.position - start
                if reader.consume(UInt8(ascii: ",")) { continue }
                if reader.consume(UInt8(ascii: "}")) { return }
                throw reader.error("expected \",\" or \"}\"")
            } catch {
                budget -= max(reader.position - start, 1)
                guard let next = nextRecordStart(in: reader.bytes, after: start) else { return }
                reader.position = next
            }
        }
    }

    /// The first quote after `start` indented like a record line: three of the four bytes
    /// before it are spaces.
    private static func nextRecordStart(in bytes: [UInt8], after start: Int) -> Int? {
        var position = max(start + 1, 4)
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "\""), bytes[position - 4..<position].count(where: { $0 == UInt8(ascii: " ") }) >= 3 {
                return position
            }
            position += 1
        }
        return nil
    }

    /// Decodes into `file`, which holds what was read so far when this throws.
    private static func decode(_ data: Data, now: Int64, into file: inout LocalSyncFile) throws(Unusable) {
        var reader = LocalSyncJSON(data)
        var sawRecords = false
        do {
            reader.skipWhitespace()
            if reader.isAtEnd { throw Unusable.corrupt("not JSON (\(data.count) bytes): the file is empty") }
            guard reader.consume(UInt8(ascii: "{")) else { throw Unusable.corrupt("the top level is not a JSON object") }
            if !reader.consume(UInt8(ascii: "}")) {
                repeat {
                    reader.skipWhitespace()
                    guard !reader.isAtEnd, reader.bytes[reader.position] == UInt8(ascii: "\"") else { throw reader.error("expected a member name") }
                    let name = try reader.string()
                    try reader.expect(UInt8(ascii: ":"), "\":\"")
                    if name == "records" {
                        guard reader.consume(UInt8(ascii: "{")) else { throw Unusable.corrupt("\"records\" is not a JSON object") }
                        sawRecords = true
                        try decodeRecords(&reader, now: now, into: &file)
                        continue
                    }
                    let value = try reader.value(depth: 2)
                    switch name {
                    case "format":
                        guard let number = value.integer else { throw Unusable.corrupt("\"format\" is not an integer") }
                        guard number <= Self.format else { throw Unusable.unsupportedFormat(Int(clamping: number)) }
                    case "epoch":
                        if case let .string(epoch) = value { file.epoch = epoch }
                    case "sequence":
                        if let sequence = value.integer, (0...maxVersion).contains(sequence) {
                            file.sequence = sequence
                        } else {
                            let what = if case .number = value { "out of range" } else { value.kind }
                            file.problems.append("has a \"sequence\" that is \(what), not an integer from 0 to \(maxVersion); it is taken from the records' versions")
                        }
                    default:
                        break
                    }
                } while reader.consume(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "}"), "\",\" or \"}\"")
            }
            reader.skipWhitespace()
            guard reader.isAtEnd else { throw reader.error("unexpected bytes after the end") }
        } catch let error as LocalSyncJSON.SyntaxError {
            throw .corrupt("not JSON (\(data.count) bytes): \(error)")
        } catch let error as Unusable {
            throw error
        } catch {
            throw .corrupt("\(error)")
        }
        guard sawRecords else { throw .corrupt("\"records\" is missing or not a JSON object") }
        file.finish()
    }

    /// Reads the members of the `records` object (its `{` already consumed) and its `}`.
    private static func decodeRecords(_ reader: inout LocalSyncJSON, now: Int64, into file: inout LocalSyncFile) throws(LocalSyncJSON.SyntaxError) {
        if reader.consume(UInt8(ascii: "}")) { return }
        repeat {
            reader.skipWhitespace()
            guard !reader.isAtEnd, reader.bytes[reader.position] == UInt8(ascii: "\"") else { throw reader.error("expected a key") }
            let key = try reader.string()
            try reader.expect(UInt8(ascii: ":"), "\":\"")
            reader.skipWhitespace()
            let start = reader.position
            let value = try reader.value(depth: 3)
            let raw = Data(reader.bytes[start..<reader.position])
            let (slot, removedAt) = slot(key: key, decoding: value, raw: raw, now: now)
            file.insert(slot, forKey: key, removedAt: removedAt)
        } while reader.consume(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "}"), "\",\" or \"}\"")
    }

    /// Adds a decoded record. A key can have only one: of two, the one that decoded is kept (the
    /// newer one if both did) and the other is reported and left out — a bit flipped in a key
    /// can make one record look like another key's.
    private mutating func insert(_ slot: Slot, forKey key: String, removedAt time: Int64?) {
        if let existing = slots[key] {
            let keepsNew = switch (existing, slot) {
            case (.intact, .damaged): false
            case let (.intact(old), .intact(new)): new.version > old.version
            case (.damaged, _): true
            }
            problems.append("holds two records of the key \(Self.shown(key)); the \(keepsNew ? "first" : "second") is left out and kept aside by the next write")
            droppedRecords = true
            guard keepsNew else { return }
        }
        slots[key] = slot
        removedAt[key] = time
    }

    /// Recovers the sequence from the versions it must reach.
    private mutating func finish() {
        let highest = slots.values.compactMap(\.version).max() ?? 0
        sequence = max(sequence, highest)
    }

    /// Decodes one record, or keeps it as damaged (`raw`: its bytes in the file), with its
    /// tombstone's time when known.
    private static func slot(key: String, decoding object: LocalSyncJSON.Value, raw: Data, now: Int64) -> (Slot, removedAt: Int64?) {
        let versionField = object["version"]
        let version = versionField?.integer.flatMap { (1...maxVersion).contains($0) ? $0 : nil }
        func damaged(_ reason: String) -> (Slot, removedAt: Int64?) {
            (.damaged(Damage(raw: raw, version: version, reason: reason)), nil)
        }
        guard case .object = object else { return damaged("the record is \(object.kind), not a JSON object") }
        guard let version else {
            switch versionField {
            case nil: return damaged("\"version\" is missing")
            case let .number(text)?: return damaged("\"version\" \(text.prefix(30)) is not an integer from 1 to \(maxVersion)")
            case let field?: return damaged("\"version\" is \(field.kind), not an integer from 1 to \(maxVersion)")
            }
        }
        let value: Data?
        switch (object["value"], object["base64"]) {
        case let (.string(text)?, nil):
            value = Data(text.utf8)
        case (.null?, nil):
            value = nil
        case let (nil, .string(encoded)?):
            guard let bytes = Data(base64Encoded: encoded) else { return damaged("\"base64\" is not valid base64") }
            value = bytes
        default:
            return damaged("the record needs exactly one of \"value\" (a string or null) and \"base64\" (a string)")
        }
        if let value, value.count > SyncLimits.maxValueBytes {
            return damaged("its value has \(value.count) bytes, more than the limit of \(SyncLimits.maxValueBytes)")
        }
        let record = SyncRecord(key: key, value: value, version: version)
        // A time that isn't an integer is taken as unknown, like a missing one; an integer too
        // far from now would make the tombstone's age meaningless (and its arithmetic overflow).
        var removedAt: Int64?
        if value == nil, let seconds = object["removedAt"]?.integer {
            guard isPlausible(time: seconds, now: now) else {
                // The message leaves out the clock: a report is made once per distinct message, and
                // a clock in it would make every second a new one.
                return damaged("\"removedAt\" \(seconds) is more than 100 years away from this machine's clock")
            }
            removedAt = seconds
        }
        // Records written by hand (or by an AppStateKit before checksums) have none.
        if let field = object["crc"] {
            guard case let .string(text) = field, text.utf8.count == 8, text.allSatisfy(\.isHexDigit), let stored = UInt32(text, radix: 16) else {
                return damaged("\"crc\" is not 8 hexadecimal digits")
            }
            guard stored == checksum(key: key, version: version, value: value, removedAt: removedAt) else {
                return damaged("its checksum does not match its content: another program or the disk changed it")
            }
        }
        return (.intact(record), removedAt)
    }

    /// The CRC-32 (IEEE) that ``encoded()`` writes as a record's `"crc"`: of its key, version,
    /// value (or that it is a tombstone) and tombstone time, whatever the JSON's spacing or
    /// escapes, so a bit the disk flipped in any of them is found.
    static func checksum(key: String, version: Int64, value: Data?, removedAt: Int64?) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        add(key.utf8)
        add("\u{0}\(version)\u{0}".utf8)
        if let value {
            add(CollectionOfOne(UInt8(ascii: "v")))
            add(value)
        } else {
            add("t\u{0}\(removedAt.map(String.init) ?? "")".utf8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var entry = UInt32(index)
        for _ in 0..<8 { entry = entry & 1 != 0 ? 0xEDB8_8320 ^ (entry >> 1) : entry >> 1 }
        return entry
    }

    // MARK: Renumbering

    /// The file with a new epoch and its intact records renumbered 1, 2, … in the order of
    /// their versions, for a commit that finds the sequence at ``maxVersion`` (only a peer that
    /// wrote such versions gets it there). Readers take the new epoch as a replacement. Damaged
    /// records whose version is above the new sequence are left out (`dropped`, to be kept
    /// aside), since they would bring it back.
    func renumbered() -> (file: LocalSyncFile, dropped: [(key: String, damage: Damage)]) {
        var file = LocalSyncFile()
        file.epoch = Self.newEpoch()
        let intact = slots.compactMap { key, slot -> SyncRecord? in
            if case let .intact(record) = slot { record } else { nil }
        }
        for (index, record) in intact.sorted(by: { ($0.version, $0.key) < ($1.version, $1.key) }).enumerated() {
            file.slots[record.key] = .intact(SyncRecord(key: record.key, value: record.value, version: Int64(index + 1)))
            file.removedAt[record.key] = removedAt[record.key]
        }
        file.sequence = Int64(intact.count)
        var dropped: [(key: String, damage: Damage)] = []
        for (key, slot) in slots.sorted(by: { $0.key < $1.key }) {
            guard case let .damaged(damage) = slot else { continue }
            if let version = damage.version, version > file.sequence {
                dropped.append((key, damage))
            } else {
                file.slots[key] = slot
            }
        }
        return (file, dropped)
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
                let crc = String(Self.checksum(key: key, version: record.version, value: record.value, removedAt: record.value == nil ? removedAt[key] : nil), radix: 16)
                out.append(contentsOf: ",\"crc\":\"\(String(repeating: "0", count: 8 - crc.count))\(crc)\"}".utf8)
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
