import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// Every bit of a small embedded-store file flipped in turn (issue 42, item 2): the store opens
/// it, everything is read, one more write is made, and the file is opened again. Every key reads
/// its acknowledged value or is reported damaged (its bytes kept, in the file or aside); no key
/// the flip didn't touch is lost; nothing traps or hangs. `swift test` (also run under the
/// sanitizers) tries every 5th bit; CI step `09-sync-fuzz.sh` tries every bit
/// (`APPSTATEKIT_BITFLIP_STRIDE=1`).
@Suite("LocalSyncStore bit flips", .isolatedApplication)
struct LocalSyncBitFlipTests {
    let path = "/data/app/sync.json"
    static let now = Date(timeIntervalSince1970: 1_796_601_600)

    func store(_ files: InMemoryFileSystem) -> LocalSyncStore {
        LocalSyncStore(path: path, changeDetection: .polling(every: .seconds(3600)), fileSystem: files, wallClock: { Self.now })
    }

    static var stride: Int {
        ProcessInfo.processInfo.environment["APPSTATEKIT_BITFLIP_STRIDE"].flatMap { Int($0) }.map { max($0, 1) } ?? 17
    }

    @Test("every bit of a store file flipped: each key reads its acknowledged value or is reported damaged, other keys survive the next write", .timeLimit(.minutes(5)))
    func flipEveryBit() async throws {
        let reports = Locked<[String]>([])
        Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { (line: String) in reports.withLock { $0.append(line) } }))

        // The acknowledged state: text, a JSON string with escapes, bytes that are not UTF-8
        // (base64) and a tombstone.
        let files = InMemoryFileSystem()
        let writer = store(files)
        let acknowledged: [String: Data?] = [
            "App/a": Data("1".utf8), "App/b": Data(#""two\n""#.utf8), "App/c": Data([0xFF, 0x00, 0x80]), "App/d": nil,
        ]
        for key in acknowledged.keys.sorted() { _ = try await writer.write(Data("0".utf8), forKey: key) }
        for (key, value) in acknowledged.sorted(by: { $0.key < $1.key }) { _ = try await writer.write(value, forKey: key) }
        // A fixed epoch instead of the random one, so every run flips the same bytes.
        let written = try #require(files.text(atPath: path))
        let epoch = try #require(try LocalSyncFile.decode(Data(written.utf8)).epoch)
        let text = written.replacingOccurrences(of: epoch, with: "5F0C6A52-8D0B-4A4E-9C1D-2B7B0C1D9E11")
        let original = Data(text.utf8)
        // The byte range of each key's line: a flip outside it must not cost that key.
        var lines: [String: Range<Int>] = [:]
        var offset = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let length = line.utf8.count + 1
            for key in acknowledged.keys where line.hasPrefix("    \"\(key)\"") { lines[key] = offset..<offset + length }
            offset += length
        }
        #expect(lines.count == acknowledged.count, "\(text)")

        var outcomes: [String: Int] = [:]
        let positions = Array(Swift.stride(from: 0, to: original.count * 8, by: Self.stride))
        for bit in positions {
            var flipped = original
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            let context = "bit \(bit) (byte \(bit / 8), \(String(decoding: [original[bit / 8]], as: UTF8.self).debugDescription)"
            let files = InMemoryFileSystem()
            files.createFile(atPath: path, contents: flipped)
            reports.withLock { $0 = [] }

            // Open and read everything: a value read is the acknowledged one; anything else is
            // an error, or an absence the log explains.
            let opened = store(files)
            var damaged: Set<String> = []
            for (key, value) in acknowledged {
                do {
                    let record = try opened.cachedRecord(forKey: key)
                    if let record {
                        #expect(record.value == value, "\(key) read a value never written: \(context)")
                    } else {
                        damaged.insert(key)
                    }
                } catch let error as SyncStoreError {
                    #expect(error.description.contains(path), "\(error): \(context)")
                    damaged.insert(key)
                }
            }
            _ = try? await opened.snapshot()
            if !damaged.isEmpty {
                #expect(reports.withLock { $0 }.contains { $0.contains(path) }, "\(damaged.sorted()) failed without a report: \(context)")
            }

            // One more write, then a fresh open.
            do {
                let written = try await opened.write(Data("9".utf8), forKey: "App/new")
                let reopened = store(files)
                #expect(try reopened.cachedRecord(forKey: "App/new") == written, "\(context)")
                var lost: [String] = []
                for (key, value) in acknowledged {
                    let record = Result { try reopened.cachedRecord(forKey: key) }
                    switch record {
                    case let .success(record?):
                        #expect(record.value == value, "\(key) after the write: \(context)")
                    case .success(nil), .failure:
                        // Only the key the flip hit may fail or go, and then its bytes are kept.
                        #expect(lines[key]?.contains(bit / 8) == true, "\(key) lost though the flip was elsewhere: \(context)")
                        lost.append(key)
                    }
                }
                if !lost.isEmpty {
                    let kept = try files.contentsOfDirectory("/data/app").contains { $0.hasPrefix("sync.json.corrupt-") }
                    // Or the damaged record (its key perhaps changed by the flip) is in the file.
                    let current = files.contents(atPath: path) ?? Data()
                    let inFile = lost.allSatisfy { key in
                        let line = flipped[lines[key]!].prefix { $0 != UInt8(ascii: "\n") }
                        let record = line.last == UInt8(ascii: ",") ? line.dropLast() : line
                        return current.range(of: Data(record)) != nil
                    }
                    #expect(kept || inFile, "\(lost) neither in the file nor kept aside: \(context)")
                }
                let outcome = damaged.isEmpty ? "read intact" : lost.isEmpty ? "reported, then repaired by the write" : "reported, the hit key's record kept (in the file or aside)"
                outcomes[outcome, default: 0] += 1
            } catch let error as SyncStoreError {
                // A flipped format digit: a file from a "newer" AppStateKit is left untouched.
                #expect(error.description.contains("newer AppStateKit"), "the write failed: \(error): \(context)")
                #expect(files.contents(atPath: path) == flipped)
                outcomes["left untouched as a newer format", default: 0] += 1
            }
        }
        let summary = outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        diagnostic("LocalSyncStore bit flips: \(positions.count) of \(original.count * 8) positions of a \(original.count)-byte file tried: \(summary)")
        #expect(outcomes.values.reduce(0, +) == positions.count)
    }
}
