import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// Fuzzes the embedded store's file decoder (issue 41, item 9): inputs made from a fixed seed (in
/// the test's name; `APPSTATEKIT_FUZZ_SEED` picks another) by structured mutations of a valid
/// file and by random bytes — 5,000 in `swift test` (and its sanitizer runs), 100,000 in CI step
/// `09-sync-fuzz.sh` (`APPSTATEKIT_FUZZ_INPUTS`). Nothing may trap or hang (the time limit), and
/// whatever decodes must hold only checked numbers and survive its own encoding unchanged.
@Suite("LocalSyncFile fuzzing", .isolatedApplication, .reportsAsDiagnostics)
struct LocalSyncFileFuzzTests {
    static let defaultSeed: UInt64 = 0x4_1F00D
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["APPSTATEKIT_FUZZ_SEED"].flatMap { UInt64($0) } ?? defaultSeed
    }
    static var inputs: Int {
        ProcessInfo.processInfo.environment["APPSTATEKIT_FUZZ_INPUTS"].flatMap { Int($0) } ?? 1_000
    }
    static let now: Int64 = 1_796_601_600

    /// A valid file with every kind of record: text, escapes, base64, tombstones with and
    /// without a time, a damaged record, and several lines.
    static let valid = Data(#"""
        {
          "format" : 1,
          "epoch" : "5F0C6A52-8D0B-4A4E-9C1D-2B7B0C1D9E11",
          "sequence" : 42,
          "records" : {
            "App/base64" : {"version":40,"base64":"/wCAgQ=="},
            "App/damaged" : {"version":7,"value":42},
            "App/escapes" : {"version":3,"value":"{\"a\":\"\\n\\u00e9\\ud83d\\ude00\",\"b\":[1,2.5e3,-0]}"},
            "App/flags" : {"version":41,"value":"{\"beta\":true}"},
            "App/gone" : {"version":42,"value":null,"removedAt":1796000000},
            "App/untimed" : {"version":12,"value":null}
          }
        }
        """#.utf8)

    static let tokens: [String] = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "4611686018427387904", "4611686018427387905",
        "18446744073709551616", "1e400", "-1e400", "1.5", "-0", "0", "00", "1e", "-", "true", "false", "null", "\"\"",
        "\"\\u\"", "\"\\ud800\"", "\"\\udc00x\"", "\"\\uZZZZ\"", "\"\\x\"", "[", "]", "{", "}", ":", ",", "\"", "\\",
        "{\"version\":1,\"value\":\"v\"}", "\"records\":{}", "\"format\":2", "\"sequence\":-1", "\"removedAt\":-9223372036854775808",
        "\u{0}", "\u{1B}[31m", "\u{FFFF}", "\u{10FFFF}", "é", "\n", "\t", " ",
    ]
    static let bytes: [UInt8] = Array("{}[]\":,\\-+.0123456789eEtfn ".utf8) + [0x00, 0x0A, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xF8, 0xFF]

    /// One generated input.
    static func input(_ generator: inout SeededGenerator) -> Data {
        var data = valid
        let mutations = Int.random(in: 1...4, using: &generator)
        for _ in 0..<mutations {
            let position = Int.random(in: 0...data.count, using: &generator)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0 where position < data.count:
                data[position] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
            case 1 where position < data.count:
                data[position] = bytes.randomElement(using: &generator)!
            case 2:
                data.insert(contentsOf: Data(tokens.randomElement(using: &generator)!.utf8), at: position)
            case 3:
                let end = min(data.count, position + Int.random(in: 1...40, using: &generator))
                data.removeSubrange(position..<end)
            case 4:
                let end = min(data.count, position + Int.random(in: 1...60, using: &generator))
                data.insert(contentsOf: data[position..<end], at: position)
            case 5:
                data = data.prefix(position)
            case 6:
                // A number replaced by a hostile one.
                var numbers: [Range<Int>] = []
                var start: Int?
                for (offset, byte) in data.enumerated() {
                    let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    if isDigit, start == nil { start = offset }
                    if !isDigit, let first = start { numbers.append(first..<offset); start = nil }
                }
                if let range = numbers.randomElement(using: &generator) {
                    data.replaceSubrange(range, with: Data(tokens[0..<11].randomElement(using: &generator)!.utf8))
                }
            case 7:
                let depth = Int.random(in: 1...3000, using: &generator)
                let open = (0..<depth).map { _ in Bool.random(using: &generator) ? "[" : "{\"k\":" }
                let nested = open.joined() + "1" + open.reversed().map { $0 == "[" ? "]" : "}" }.joined()
                data.insert(contentsOf: Data(nested.utf8), at: position)
            case 8:
                data = Data((0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            default:
                data = Data((0..<Int.random(in: 0...300, using: &generator)).map { _ in bytes.randomElement(using: &generator)! })
            }
        }
        return data
    }

    @Test("generated files (seed 0x41F00D; 100,000 in CI): the decoder never traps or hangs, holds only checked numbers, and reads back what it writes", .timeLimit(.minutes(5)))
    func fuzzDecoder() async throws {
        // On a thread of its own: a long computation must not hold one of the few cooperative
        // threads the other tests' tasks run on.
        let (seed, inputs) = (Self.seed, Self.inputs)
        let outcome = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Self.fuzz(seed: seed, inputs: inputs)) }.start()
        }
        #expect(outcome.failures.isEmpty, "\(outcome.failures.count) failures, the first: \(outcome.failures.prefix(5))")
        // The mutations reach both outcomes often (a generator that only made garbage would fail).
        #expect(outcome.decoded > inputs / 20 && outcome.decoded < inputs, "\(outcome.decoded) of \(inputs) decoded")
        #expect(outcome.damagedRecords > outcome.decoded)
        // Printed by CI step 09-sync-fuzz.sh (a test diagnostic).
        diagnostic("LocalSyncFile fuzzing: \(inputs) inputs from seed \(seed) (APPSTATEKIT_FUZZ_SEED), \(outcome.decoded) decoded, \(outcome.damagedRecords) damaged records, \(outcome.failures.count) failures, 0 crashes")
    }

    struct Outcome: Sendable {
        var decoded = 0
        var damagedRecords = 0
        var failures: [String] = []
    }

    /// Decodes `inputs` generated files (and salvages each), checking every result.
    static func fuzz(seed: UInt64, inputs: Int) -> Outcome {
        var generator = SeededGenerator(seed: seed)
        var outcome = Outcome()
        for index in 0..<inputs {
            let data = input(&generator)
            var problems = check(LocalSyncFile.salvage(data, now: now))
            if let file = try? LocalSyncFile.decode(data, now: now) {
                outcome.decoded += 1
                outcome.damagedRecords += file.slots.values.filter { if case .damaged = $0 { true } else { false } }.count
                problems += check(file)
                // What the store writes back reads as the same file.
                let again = try? LocalSyncFile.decode(file.encoded(), now: now)
                if again?.slots != file.slots || again?.sequence != file.sequence || again?.epoch != file.epoch || again?.removedAt != file.removedAt {
                    problems.append("its encoding reads differently")
                }
            }
            if !problems.isEmpty {
                outcome.failures.append("input \(index) of seed \(seed) (\(data.base64EncodedString())): \(problems)")
            }
        }
        return outcome
    }

    /// What is out of bounds in a decoded file.
    static func check(_ file: LocalSyncFile) -> [String] {
        var problems: [String] = []
        if !(0...LocalSyncFile.maxVersion).contains(file.sequence) { problems.append("sequence \(file.sequence)") }
        for (key, slot) in file.slots {
            if let version = slot.version, !(1...max(file.sequence, 1)).contains(version) || version > file.sequence {
                problems.append("\(key): version \(version) outside 1...\(file.sequence)")
            }
            if case let .intact(record) = slot, (record.value?.count ?? 0) > SyncLimits.maxValueBytes {
                problems.append("\(key): a value of \(record.value?.count ?? 0) bytes")
            }
        }
        for (key, time) in file.removedAt where !LocalSyncFile.isPlausible(time: time, now: now) {
            problems.append("\(key): removedAt \(time)")
        }
        return problems
    }

    @Test("deep nesting is skipped without recursion: 1,000,000 levels in a record damage that record only, on a 512 KiB thread stack")
    func deepNesting() throws {
        let depth = 1_000_000
        let text = #"{"format":1,"sequence":2,"records":{"App/deep":{"version":1,"value":"# + String(repeating: "[", count: depth)
            + String(repeating: "]", count: depth) + #"},"App/ok":{"version":2,"value":"1"}}}"#
        let data = Data(text.utf8)
        let result = Locked<LocalSyncFile?>(nil)
        let done = DispatchSemaphore(value: 0)
        // A thread with the stack size the issue names, as a server's worker threads may have.
        let thread = Thread {
            result.withLock { $0 = try? LocalSyncFile.decode(data, now: Self.now) }
            done.signal()
        }
        thread.stackSize = 512 << 10
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success)
        let file = try #require(result.withLock { $0 })
        #expect(file.slots["App/ok"] == .intact(SyncRecord(key: "App/ok", value: Data("1".utf8), version: 2)))
        guard case .damaged? = file.slots["App/deep"] else {
            Issue.record("expected a damaged record")
            return
        }
    }
}
