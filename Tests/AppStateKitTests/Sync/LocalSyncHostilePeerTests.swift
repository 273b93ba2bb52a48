import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// A hostile peer against the embedded store's shared file (issue 41, item 8): while store
/// instances (and, in the last test, a child process) run, another program rewrites `sync.json`
/// with each trigger. No instance stops, the other keys keep their values and keep propagating,
/// writes succeed, and the damage is reported once per instance, not on every read.
@Suite("LocalSyncStore against a hostile peer", .serialized, .isolatedApplication, .reportsAsDiagnostics)
struct LocalSyncHostilePeerTests {
    /// What a peer does to the file, and what the instances can keep of it.
    struct Trigger: Sendable, CustomTestStringConvertible {
        enum Reach: Sendable {
            /// Only the victim's record is damaged: every other key reads throughout.
            case record
            /// The file can't be read until a write replaces it, which keeps the other keys.
            case file
            /// Nothing of the file can be kept (not JSON at all, or deleted): the other keys are
            /// lost with it (their bytes are kept aside), but nothing stops.
            case everything
        }

        let name: String
        let reach: Reach
        /// A piece of the one report the damage must cause per instance (`nil`: no report, as
        /// for a deleted file).
        let report: String?
        let apply: @Sendable (_ path: String) throws -> Void

        var testDescription: String { name }
    }

    static let victim = "App/victim"

    /// Writes `data` over the file (replacing a symbolic link another trigger left) by an
    /// atomic rename, so the instances see only the trigger's bytes; the child test also writes
    /// in place, where a reader can find a file half written.
    static func peerWrite(_ data: Data, to path: String) throws {
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil {
            try FileManager.default.removeItem(atPath: path)
        }
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The file's text with the victim's record replaced by `record` (or added, when missing).
    static func withVictim(_ record: String, in path: String) throws -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var lines = text.components(separatedBy: "\n")
        let prefix = "    \"\(victim)\" : "
        if let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) {
            let comma = lines[index].hasSuffix(",") ? "," : ""
            lines[index] = prefix + record + comma
            return lines.joined(separator: "\n")
        }
        return #"{"format":1,"epoch":"peer","sequence":5,"records":{"\#(victim)":\#(record)}}"#
    }

    static func damagingVictim(_ name: String, _ record: String) -> Trigger {
        Trigger(name: name, reach: .record, report: "\"\(victim)\"") { path in
            try peerWrite(Data(withVictim(record, in: path).utf8), to: path)
        }
    }

    static let triggers: [Trigger] = [
        damagingVictim("version Int64.max", #"{"version":9223372036854775807,"value":"7"}"#),
        damagingVictim("version Int64.min", #"{"version":-9223372036854775808,"value":"7"}"#),
        damagingVictim("version beyond Int64", #"{"version":18446744073709551616,"value":"7"}"#),
        damagingVictim("removedAt Int64.min", #"{"version":2,"value":null,"removedAt":-9223372036854775808}"#),
        damagingVictim("removedAt in the year 2400", #"{"version":2,"value":null,"removedAt":13569465600}"#),
        damagingVictim("wrong types", #"{"version":"2","value":42}"#),
        damagingVictim("a number nothing holds", #"{"version":1e400,"value":"7"}"#),
        damagingVictim("not an object", #"[1,2,3]"#),
        damagingVictim("a 2 MiB value", #"{"version":2,"value":"\#(String(repeating: "x", count: 2 << 20))"}"#),
        damagingVictim("100,000 nested arrays", #"{"version":2,"value":\#(String(repeating: "[", count: 100_000))\#(String(repeating: "]", count: 100_000))}"#),
        Trigger(name: "sequence Int64.max", reach: .record, report: "\"sequence\"") { path in
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let changed = text.replacingOccurrences(of: #""sequence" : \d+"#, with: #""sequence" : 9223372036854775807"#, options: .regularExpression)
            try peerWrite(Data(changed.utf8), to: path)
        },
        Trigger(name: "truncated inside the victim's record", reach: .file, report: "cannot be decoded") { path in
            let text = try withVictim(#"{"version":2,"value":"a value cut in the middle"}"#, in: path)
            guard let cut = text.range(of: "cut in the")?.lowerBound else { throw PeerSkipped() }
            try peerWrite(Data(text[..<cut].utf8), to: path)
        },
        Trigger(name: "garbage bytes over the victim's record", reach: .file, report: "cannot be decoded") { path in
            let text = try withVictim("@@@", in: path)
            var bytes = Data(text.utf8)
            guard let at = bytes.range(of: Data("@@@".utf8)) else { throw PeerSkipped() }
            bytes.replaceSubrange(at, with: [0xFF, 0x00, 0x22, 0x7B, 0xC3, 0x28, 0x5C, 0x1B, 0x5B, 0x33, 0x31, 0x6D])
            try peerWrite(bytes, to: path)
        },
        Trigger(name: "a symbolic link to a copy with the victim damaged", reach: .record, report: "\"\(victim)\"") { path in
            let copy = path + "-peer"
            try Data(withVictim(#"{"version":9223372036854775807,"value":"7"}"#, in: path).utf8).write(to: URL(fileURLWithPath: copy))
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: copy)
        },
        Trigger(name: "a file over the size limit", reach: .file, report: "over its limit") { path in
            let text = try withVictim(#"{"version":2,"value":"kept"}"#, in: path)
            // A record sorted last, so the ones before it fit in the limit.
            let huge = #"    "zzz" : {"version":3,"value":"\#(String(repeating: "z", count: 6 << 20))"}"#
            let records = text.components(separatedBy: "\n")
            guard let end = records.lastIndex(where: { $0.hasPrefix("    \"") }) else { throw PeerSkipped() }
            var lines = records
            lines[end] += ",\n" + huge
            try peerWrite(Data(lines.joined(separator: "\n").utf8), to: path)
        },
        Trigger(name: "garbage instead of the file", reach: .everything, report: "cannot be decoded") { path in
            var generator = SeededGenerator(seed: 41)
            try peerWrite(Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }), to: path)
        },
        Trigger(name: "a dangling symbolic link", reach: .everything, report: nil) { path in
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path + "-nowhere")
        },
    ]

    /// The file limit of the stores in this suite: 4 MiB, so a 2 MiB value is only over the
    /// value limit and a 6 MiB file is over this one.
    static let maxFileBytes = 4 << 20

    @Test("a peer rewrites the shared file: no instance stops, other keys keep their values and keep propagating, writes succeed, the damage is reported once", arguments: triggers)
    func hostilePeer(trigger: Trigger) async throws {
        let messages = collectErrors()
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let writer = LocalSyncStore(path: path, maxFileBytes: Self.maxFileBytes)
        let reader = LocalSyncStore(path: path, maxFileBytes: Self.maxFileBytes)
        for key in ["App/a", "App/b", Self.victim] { _ = try await writer.write(Data("1".utf8), forKey: key) }
        let feed = FeedRecorder(SyncChange.records(of: reader.changeFeed()))
        defer { Task { await feed.cancel() } }
        #expect(try reader.cachedRecord(forKey: "App/b")?.value == Data("1".utf8))

        try trigger.apply(path)
        // Both instances read everything, many times.
        for _ in 0..<20 {
            for store in [writer, reader] {
                for key in ["App/a", "App/b", Self.victim] { _ = try? store.cachedRecord(forKey: key) }
                _ = try? await store.snapshot()
            }
        }
        if trigger.reach == .record {
            for store in [writer, reader] {
                #expect(try store.cachedRecord(forKey: "App/a")?.value == Data("1".utf8))
                #expect(try store.cachedRecord(forKey: "App/b")?.value == Data("1".utf8))
            }
        }
        // The commits' own reports of what they kept aside are not the damage's report.
        let reports = { messages.messages.filter { (trigger.report.map($0.contains) ?? false) && !$0.contains("kept at") } }
        if trigger.report != nil {
            // Once per instance (the reader's watcher may not have looked yet): never per read.
            #expect((1...2).contains(reports().count), "\(messages.messages)")
        }

        // Writes succeed, and reach the other instance's feed.
        let a = try await writer.write(Data("2".utf8), forKey: "App/a")
        let seen = await feed.wait { $0.contains { $0.key == "App/a" && $0.value == Data("2".utf8) } }
        #expect(seen.contains { $0.key == "App/a" && $0.version == a.version }, "\(seen)")
        #expect(try reader.cachedRecord(forKey: "App/a") == a)
        if trigger.reach != .everything {
            #expect(try reader.cachedRecord(forKey: "App/b")?.value == Data("1".utf8))
        }
        // The victim's key is writable again, for both instances.
        let victim = try await reader.write(Data("3".utf8), forKey: Self.victim)
        #expect(try writer.cachedRecord(forKey: Self.victim) == victim)
        let fresh = LocalSyncStore(path: path, maxFileBytes: Self.maxFileBytes)
        #expect(try fresh.cachedRecord(forKey: Self.victim) == victim)
        #expect(try fresh.cachedRecord(forKey: "App/a") == a)
        if trigger.report != nil {
            #expect((1...2).contains(reports().count), "reported again after the writes: \(messages.messages)")
        }
        // Nothing a peer chose reaches a message unescaped.
        #expect(messages.messages.allSatisfy { !$0.contains("\u{1B}") && !$0.contains("\u{0}") })
    }

    @Test("a child process keeps writing and reading while a peer rewrites the file with every trigger, again and again")
    func childSurvivesPeer() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let store = LocalSyncStore(path: path, maxFileBytes: Self.maxFileBytes)
        _ = try await store.write(Data("1".utf8), forKey: Self.victim)
        let child = try PersistenceChild.start(["sync-survive", path, "App/child", "200"], capturingErrors: true)
        var rounds = 0
        while child.process.isRunning, rounds < 400 {
            let trigger = Self.triggers[rounds % Self.triggers.count]
            // A peer's own write can find the file mid-replacement: that is not this test's point.
            try? trigger.apply(path)
            if rounds % 3 == 0, let bytes = FileManager.default.contents(atPath: path) {
                // In place, in two steps: readers can find it empty or half written.
                if let handle = FileHandle(forWritingAtPath: path) {
                    try? handle.truncate(atOffset: 0)
                    try? handle.write(contentsOf: bytes.prefix(bytes.count / 2))
                    try? handle.write(contentsOf: bytes.dropFirst(bytes.count / 2))
                    try? handle.close()
                }
            }
            _ = try? store.cachedRecord(forKey: "App/child")
            _ = try await store.write(Data("\(rounds)".utf8), forKey: "App/parent")
            rounds += 1
            try await Task.sleep(for: .milliseconds(10))
        }
        let said = String(decoding: child.read(), as: UTF8.self)
        #expect(child.waitForExit())
        let errors = child.errors.map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        #expect(child.process.terminationStatus == 0, "\(errors.suffix(2000))")
        #expect(said.hasPrefix("done 200 writes"), "\(said)")
        // Afterwards both sides still write and read.
        let last = try await store.write(Data("\"end\"".utf8), forKey: "App/parent")
        #expect(try LocalSyncStore(path: path, maxFileBytes: Self.maxFileBytes).cachedRecord(forKey: "App/parent") == last)
        diagnostic("LocalSyncStore hostile peer: \(rounds) peer rewrites while a child made 200 writes")
    }
}

/// A trigger that found the file in a shape it can't edit (another trigger's garbage).
struct PeerSkipped: Error {}

/// A small deterministic generator (SplitMix64), so a failing input can be made again from its
/// seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
