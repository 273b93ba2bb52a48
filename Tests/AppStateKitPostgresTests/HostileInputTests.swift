#if PostgreSQL
import AppStateKit
import AppStateKitPostgres
import AppStateKitTesting
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A small deterministic generator (SplitMix64), so a fuzz failure reproduces from its seed.
struct FuzzRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// The seed of every fuzz run: APPSTATEKIT_FUZZ_SEED (decimal or 0x-hex) or a fixed one.
    static let seed: UInt64 = {
        guard let text = ProcessInfo.processInfo.environment["APPSTATEKIT_FUZZ_SEED"] else { return 0x41_4153_4b5f_4655 }
        if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) ?? 0x41 }
        return UInt64(text) ?? 0x41
    }()

    /// Random bytes, `0..<maxCount` of them.
    mutating func bytes(upTo maxCount: Int) -> [UInt8] {
        (0..<Int.random(in: 0..<maxCount, using: &self)).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// One of `choices`.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &self)] }

    /// A structured mutation of `text`: a byte replaced, inserted or removed, a cut, a
    /// duplication, or an interesting token spliced in.
    mutating func mutate(_ text: [UInt8]) -> [UInt8] {
        var bytes = text
        let tokens: [[UInt8]] = [
            Array("9223372036854775807".utf8), Array("-9223372036854775808".utf8), Array("9223372036854775808".utf8),
            Array("0".utf8), Array("-1".utf8), Array(" ".utf8), Array("\n".utf8), Array("\u{1b}[2J".utf8),
            Array("Infinity".utf8), Array("\"".utf8), Array("\\".utf8), Array("\u{0}".utf8), [0xff, 0xfe], Array("é".utf8),
            Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("null".utf8), Array("1e400".utf8),
        ]
        for _ in 0..<Int.random(in: 1...3, using: &self) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &self)
            switch Int.random(in: 0..<7, using: &self) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &self)
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &self), at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            case 3: bytes = Array(bytes.prefix(position))
            case 4: bytes.insert(contentsOf: pick(tokens), at: position)
            case 5 where !bytes.isEmpty: bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &self)
            default: bytes += bytes.prefix(Int.random(in: 0...16, using: &self))
            }
        }
        return bytes
    }
}

/// The pure parts that face input from other roles and from disk — the notification parser,
/// the row decoder, the last-known-good file's decoder and its checks — with the inputs of
/// issue 41 and fuzzed with a fixed seed. No server needed.
@Suite("Hostile input", .isolatedApplication)
struct HostileInputTests {
    static let now = SyncInputBounds.nowMicroseconds()
    static let fuzzCount = 100_000

    // MARK: Notifications

    @Test("a notification with stamp Int64.min, Int64.max or any other out-of-range number is malformed, not a trap")
    func notificationNumbersAreChecked() {
        let payloads = [
            "1 -9223372036854775808 x", "1 9223372036854775807 x", "9223372036854775807 \(Self.now) x",
            "-9223372036854775808 \(Self.now) x", "0 \(Self.now) x", "1 99999999999999999999 x", "x y z", "1 2", "",
            "1 \(Self.now) ", String(repeating: "1", count: 9000),
        ]
        for payload in payloads {
            guard case .failure = SyncNotification.parse(payload, now: Self.now) else {
                Issue.record("accepted \(payload.prefix(60))")
                continue
            }
        }
        #expect(SyncNotification.parse("3 \(Self.now) flags.checkout", now: Self.now) == .success(SyncNotification(version: 3, stamp: Self.now, key: "flags.checkout")))
    }

    @Test("the lag metric is clamped to 0…1 hour whatever the stamp")
    func lagIsClamped() {
        for stamp in [Int64.min, Int64.min + 1, -1, 0, Self.now, Self.now + 5_000_000, Int64.max] {
            let lag = SyncNotification(version: 1, stamp: stamp, key: "k").lagMicroseconds(now: Self.now)
            #expect((0...SyncInputBounds.maxLagMicroseconds).contains(lag))
        }
        #expect(SyncNotification(version: 1, stamp: Self.now - 2_000, key: "k").lagMicroseconds(now: Self.now) == 2_000)
    }

    @Test("fuzz: the notification parser on 100,000 generated payloads", .timeLimit(.minutes(2)))
    func fuzzNotificationParser() {
        var random = FuzzRandom(seed: FuzzRandom.seed)
        let valid = [Array("1 \(Self.now) a".utf8), Array("42 \(Self.now - 1_000) flags.checkout/v2".utf8), Array("7 \(Self.now) k é ✓".utf8)]
        var accepted = 0
        for index in 0..<Self.fuzzCount {
            let bytes = index % 4 == 3 ? random.bytes(upTo: 64) : random.mutate(random.pick(valid))
            let payload = String(decoding: bytes, as: UTF8.self)
            switch SyncNotification.parse(payload, now: Self.now) {
            case .success(let notification):
                accepted += 1
                #expect(SyncInputBounds.isValid(version: notification.version))
                #expect(SyncInputBounds.isSane(stamp: notification.stamp, now: Self.now))
                #expect((0...SyncInputBounds.maxLagMicroseconds).contains(notification.lagMicroseconds(now: Self.now)))
            case .failure(let malformed):
                // Its report is short and escaped.
                let line = "\(malformed): \(SyncInputBounds.escapedPrefix(payload))"
                #expect(!line.contains("\n") && !line.contains("\u{1b}"))
            }
        }
        print("fuzz notification parser: \(Self.fuzzCount) inputs, seed 0x\(String(FuzzRandom.seed, radix: 16)), \(accepted) accepted, 0 crashes")
    }

    @Test("a notification buffer keeps at most its capacity of keys, coalesces per key and then asks for a reconciliation")
    func notificationBufferIsBounded() {
        let buffer = NotificationBuffer(capacity: 4)
        for round in 0..<1000 {
            buffer.offer(SyncNotification(version: Int64(round + 1), stamp: Self.now, key: "same"))
        }
        #expect(buffer.count == 1)
        for index in 0..<100_000 {
            buffer.offer(SyncNotification(version: 1, stamp: Self.now, key: "k\(index)"))
        }
        #expect(buffer.count == 4)
        let (taken, reconcile) = buffer.take()
        #expect(taken.first == SyncNotification(version: 1000, stamp: Self.now, key: "same"))
        #expect(taken.count == 4)
        #expect(reconcile)
        #expect(buffer.droppedCount == 100_000 - 3)
        #expect(buffer.take().reconcileSoon == false)
    }

    @Test("malformed notifications are reported at most once per interval on the store's clock, with the count")
    func malformedReportsAreRateLimited() async {
        let clock = TestClock()
        let buffer = WaitClock.$current.withValue(WaitClock(clock)) { NotificationBuffer() }
        #expect(buffer.noteMalformed() == 1)
        for _ in 1...999 {
            await clock.advance(by: .milliseconds(1))
            #expect(buffer.noteMalformed() == nil)
        }
        await clock.advance(by: NotificationBuffer.reportInterval - .milliseconds(999))
        #expect(buffer.noteMalformed() == 1000)
        #expect(buffer.noteMalformed() == nil)
        #expect(buffer.malformedCount == 1002)
    }

    @Test("text from others is escaped and cut in reports")
    func escapedPrefix() {
        #expect(SyncInputBounds.escapedPrefix("a\nb\u{1b}[2J\"\\é") == #"a\nb\u{1b}[2J\"\\\u{e9}"#)
        let long = SyncInputBounds.escapedPrefix(String(repeating: "x", count: 300))
        #expect(long.hasPrefix(String(repeating: "x", count: 80) + "…"))
        #expect(long.hasSuffix("(300 bytes in all)"))
    }

    // MARK: Rows

    static func row(key: String = "k", value: String? = "1", version: Int64? = 1, stamp: String? = String(now)) -> SyncRow {
        SyncRow(key: key, value: value, valueBytes: value.map { Int64($0.utf8.count) }, version: version, stamp: stamp)
    }

    @Test("rows with an infinite or NULL time, an absurd version, an over-size value or a bad key are damaged, not fatal")
    func damagedRows() {
        let damaged: [(SyncRow, String)] = [
            (Self.row(stamp: "Infinity"), "updated_at"),
            (Self.row(stamp: "-Infinity"), "updated_at"),
            (Self.row(stamp: nil), "updated_at"),
            (Self.row(stamp: "9224286393600000000"), "updated_at"),
            (Self.row(stamp: String(Self.now + SyncInputBounds.timeWindowMicroseconds + 1)), "updated_at"),
            (Self.row(version: Int64.max), "version"),
            (Self.row(version: 0), "version"),
            (Self.row(version: nil), "version"),
            (Self.row(version: Int64.min), "version"),
            (SyncRow(key: "k", value: nil, valueBytes: 50_000_000, version: 1, stamp: String(Self.now)), "50000000 bytes"),
            (Self.row(key: String(repeating: "k", count: 300)), "key"),
        ]
        for (row, reason) in damaged {
            switch row.decode(now: Self.now) {
            case .success: Issue.record("accepted \(row)")
            case .failure(let damage): #expect("\(damage)".contains(reason))
            }
        }
        #expect(Self.row().decode(now: Self.now) == .success(StampedRecord(SyncRecord(key: "k", value: Data("1".utf8), version: 1), stamp: Self.now)))
        #expect(Self.row(value: nil).decode(now: Self.now) == .success(StampedRecord(SyncRecord(key: "k", value: nil, version: 1), stamp: Self.now)))
    }

    @Test("fuzz: the row decoder on 100,000 generated rows", .timeLimit(.minutes(2)))
    func fuzzRowDecoder() {
        var random = FuzzRandom(seed: FuzzRandom.seed &+ 1)
        let versions: [Int64?] = [nil, .min, -1, 0, 1, 2, SyncInputBounds.maxVersion, SyncInputBounds.maxVersion + 1, .max]
        let stamps: [String?] = [
            nil, "", "Infinity", "-Infinity", "NaN", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            String(Self.now), String(Self.now - SyncInputBounds.timeWindowMicroseconds), String(Self.now + SyncInputBounds.timeWindowMicroseconds + 1),
            "+5", " 5", "0",
        ]
        var accepted = 0
        for _ in 0..<Self.fuzzCount {
            let key = String(decoding: random.mutate(Array("flags.key".utf8)), as: UTF8.self)
            let value: String? = random.pick([true, false, false]) ? nil : String(decoding: random.mutate(Array(#"{"on":true}"#.utf8)), as: UTF8.self)
            let size: Int64? = random.pick([
                value.map { Int64($0.utf8.count) }, nil, Int64.random(in: .min ... .max, using: &random),
                Int64(SyncLimits.maxValueBytes + 1), -1,
            ])
            let version = random.pick([true, false]) ? random.pick(versions) : Int64.random(in: .min ... .max, using: &random)
            let stamp = random.pick([true, false]) ? random.pick(stamps)
                : String(decoding: random.mutate(Array(String(Self.now).utf8)), as: UTF8.self)
            let row = SyncRow(key: key, value: value, valueBytes: size, version: version, stamp: stamp)
            if case .success(let stamped) = row.decode(now: Self.now) {
                accepted += 1
                #expect(SyncInputBounds.isValid(version: stamped.record.version))
                #expect((stamped.record.value?.count ?? 0) <= SyncLimits.maxValueBytes)
                #expect(stamped.stamp.map { SyncInputBounds.isSane(stamp: $0, now: Self.now) } == true)
            }
        }
        print("fuzz row decoder: \(Self.fuzzCount) inputs, seed 0x\(String(FuzzRandom.seed &+ 1, radix: 16)), \(accepted) accepted, 0 crashes")
    }

    @Test("a damaged record is reported once per key and reason, and again after it read well; beyond the capacity, one summary a minute on the store's clock")
    func damageReportedOnce() async {
        let lines = LockedLines()
        let clock = TestClock()
        let reporter = DamageReporter(clock: WaitClock(clock)) { lines.append($0) }
        for _ in 0..<10 {
            reporter.report(key: "k", reason: "infinite time") { "k is damaged" }
        }
        #expect(lines.count == 1)
        reporter.report(key: "k", reason: "version") { "k version" }
        #expect(lines.count == 2)
        reporter.keepOnly([])
        reporter.report(key: "k", reason: "version") { "k version" }
        #expect(lines.count == 3)
        for index in 0..<(DamageReporter.capacity + 500) {
            reporter.report(key: "many\(index)", reason: "r") { "many" }
        }
        // The capacity of keys one by one, then one summary for the rest (within the minute).
        #expect(lines.count == 3 + DamageReporter.capacity - 1 + 1)
        await clock.advance(by: .seconds(59))
        reporter.report(key: "late", reason: "r") { "late" }
        #expect(lines.count == 3 + DamageReporter.capacity - 1 + 1, "a minute has not passed")
        await clock.advance(by: .seconds(1))
        reporter.report(key: "later", reason: "r") { "later" }
        #expect(lines.count == 3 + DamageReporter.capacity - 1 + 2)
        #expect(lines.all.last?.contains("503 more damaged records") == true, "\(lines.all.last ?? "")")
    }

    // MARK: The last-known-good file

    static let records = [
        SyncRecord(key: "flags.a", value: Data("true".utf8), version: 3),
        SyncRecord(key: "flags.b", value: nil, version: 1),
        SyncRecord(key: "é", value: Data(#"{"n":1}"#.utf8), version: 12),
    ]

    static func sample() throws -> Data {
        try LastKnownGoodFile.encode(records, table: "t", namespace: "ns", savedAt: Date(timeIntervalSince1970: 1_790_000_000))
    }

    @Test("every single-bit flip of a small last-known-good file is reported as damage, never served or a crash")
    func lastKnownGoodBitFlips() throws {
        let original = try Self.sample()
        let decoded = try LastKnownGoodFile.decode(original, table: "t", namespace: "ns")
        #expect(decoded.records.sorted { $0.key < $1.key } == Self.records.sorted { $0.key < $1.key })
        var bytes = [UInt8](original)
        var flips = 0
        for index in bytes.indices {
            for bit in 0..<8 {
                bytes[index] ^= UInt8(1) << UInt8(bit)
                flips += 1
                do {
                    let loaded = try LastKnownGoodFile.decode(Data(bytes), table: "t", namespace: "ns")
                    Issue.record("flipping bit \(bit) of byte \(index) was served: \(loaded.records)")
                } catch is LastKnownGoodFile.Damage {
                } catch let error as SyncStoreError where error.kind == .corruptRecord {
                } catch {
                    Issue.record("flipping bit \(bit) of byte \(index) threw \(error)")
                }
                bytes[index] ^= UInt8(1) << UInt8(bit)
            }
        }
        print("last-known-good bit flips: \(flips) positions of a \(original.count)-byte file, all reported damaged")
    }

    @Test("fuzz: the last-known-good decoder on 100,000 generated files", .timeLimit(.minutes(3)))
    func fuzzLastKnownGoodDecoder() throws {
        var random = FuzzRandom(seed: FuzzRandom.seed &+ 2)
        let original = try Self.sample()
        let newline = original.firstIndex(of: UInt8(ascii: "\n"))!
        let body = [UInt8](original[(newline + 1)...])
        var served = 0
        for index in 0..<Self.fuzzCount {
            let bytes: [UInt8]
            switch index % 4 {
            case 0: bytes = random.mutate([UInt8](original))
            case 1: bytes = random.bytes(upTo: 200)
            default:
                // A mutated body under a matching checksum: the JSON decoder and record checks.
                let mutated = random.mutate(body)
                let header = "appstatekit-last-known-good 2 fnv1a64=" + {
                    let digits = String(LastKnownGoodFile.fnv1a64(mutated), radix: 16)
                    return String(repeating: "0", count: 16 - digits.count) + digits
                }() + "\n"
                bytes = Array(header.utf8) + mutated
            }
            do {
                let loaded = try LastKnownGoodFile.decode(Data(bytes), table: "t", namespace: "ns")
                served += 1
                for record in loaded.records {
                    #expect(SyncInputBounds.isValid(version: record.version))
                    #expect((record.value?.count ?? 0) <= SyncLimits.maxValueBytes)
                }
            } catch {}
        }
        print("fuzz last-known-good decoder: \(Self.fuzzCount) inputs, seed 0x\(String(FuzzRandom.seed &+ 2, radix: 16)), \(served) decoded, 0 crashes")
    }

    @Test("a last-known-good record with an absurd version or key is left out, the others served")
    func lastKnownGoodDamagedRecord() throws {
        let data = try LastKnownGoodFile.encode(
            [SyncRecord(key: "good", value: Data("1".utf8), version: 1), SyncRecord(key: "bad", value: Data("1".utf8), version: .max)],
            table: "t", namespace: "", savedAt: Date()
        )
        let loaded = try LastKnownGoodFile.decode(data, table: "t", namespace: "")
        #expect(loaded.records.map(\.key) == ["good"])
        #expect(loaded.damaged.map(\.key) == ["bad"])
    }

    /// A folder of its own for one test.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lkg-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a saved copy is a 0600 regular file that loads; a copy with other modes, owners, a link or over the cap is refused with why")
    func lastKnownGoodFileChecks() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("lkg.json")
        let file = LastKnownGoodFile(url: url)
        try file.save(Self.records, table: "t", namespace: "ns")
        var info = stat()
        #expect(stat(url.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try file.load(table: "t", namespace: "ns")?.records.count == 3)

        func refusal() -> String {
            do {
                _ = try file.load(table: "t", namespace: "ns")
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        chmod(url.path, 0o644)
        #expect(refusal().contains("its mode is 644"))
        chmod(url.path, 0o600)
        if geteuid() == 0 {
            chown(url.path, 12345, 12345)
            #expect(refusal().contains("owned by user id 12345"))
            chown(url.path, 0, 0)
        }
        let link = folder.appendingPathComponent("link.json")
        symlink(url.path, link.path)
        #expect(refusal().contains("loaded"))
        #expect({
            do {
                _ = try LastKnownGoodFile(url: link).load(table: "t", namespace: "ns")
                return "loaded"
            } catch { return "\(error)" }
        }().contains("symbolic link"))
        let big = folder.appendingPathComponent("big.json")
        let descriptor = open(big.path, O_CREAT | O_WRONLY, 0o600)
        ftruncate(descriptor, off_t(LastKnownGoodFile.maxBytes + 1))
        close(descriptor)
        #expect({
            do {
                _ = try LastKnownGoodFile(url: big).load(table: "t", namespace: "ns")
                return "loaded"
            } catch { return "\(error)" }
        }().contains("more than \(LastKnownGoodFile.maxBytes)"))
        // A damaged copy is reported, not served.
        var bytes = try [UInt8](Data(contentsOf: url))
        bytes[bytes.count - 3] ^= 1
        try Data(bytes).write(to: url)
        chmod(url.path, 0o600)
        #expect(refusal().contains("damaged"))
    }

    @Test("a save removes the copy's stray temporary files older than a minute, and only those")
    func strayTemporariesRemoved() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("lkg.json")
        let prefix = LastKnownGoodFile.temporaryPrefix(of: url)
        let stale = folder.appendingPathComponent(prefix + "1.tmp")
        let fresh = folder.appendingPathComponent(prefix + "2.tmp")
        let unrelated = folder.appendingPathComponent("other.tmp")
        for path in [stale, fresh, unrelated] {
            _ = FileManager.default.createFile(atPath: path.path, contents: Data("x".utf8))
        }
        var times = [timeval(tv_sec: time(nil) - 3600, tv_usec: 0), timeval(tv_sec: time(nil) - 3600, tv_usec: 0)]
        utimes(stale.path, &times)
        try LastKnownGoodFile(url: url).save(Self.records, table: "t", namespace: "ns")
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
    }

    @Test("migrationSQL validates the table name like init")
    func migrationSQLValidates() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = PostgresSyncStore.Configuration()
            configuration.table = "t\"; DROP TABLE users; --"
            _ = PostgresSyncStore.migrationSQL(configuration: configuration)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("PostgresSyncStore's table name"))
    }

    @Test("grantSQL validates the schema name like init")
    func grantSQLValidates() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = PostgresSyncStore.Configuration()
            configuration.schema = "s\"; DROP"
            _ = PostgresSyncStore.grantSQL(configuration: configuration, role: "app")
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("PostgresSyncStore's schema name"))
    }
}

/// Lines a test's logger collected.
final class LockedLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var count: Int { lines.withLock { $0.count } }
    var all: [String] { lines.withLock { $0 } }
}
#endif
