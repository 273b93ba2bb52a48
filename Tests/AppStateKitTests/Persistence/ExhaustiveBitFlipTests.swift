import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 42, item 2: every bit of a small store's files flipped in turn, in each layout. After
/// each flip the store is opened, every key read and one more write made: every key reads its
/// acknowledged value or is reported damaged (and the damaged bytes are kept aside); a key
/// whose bytes the flip did not touch is never lost; nothing crashes or hangs.
///
/// The store's file is plain JSON that people may edit, without a checksum: a flip that leaves
/// valid JSON with another value in a key's own bytes is indistinguishable from a hand edit, so
/// that key (and only that key) may read the edited value. The log's records are checksummed.
@Suite("Every bit flipped, at every position", .isolatedApplication, .reportsAsDiagnostics)
struct ExhaustiveBitFlipTests {
    static let directory = "/data/app"
    static let path = "/data/app/defaults.json"
    static let keys = ["alpha", "beta", "gamma", "delta"]
    /// Every byte with `APPSTATEKIT_EXHAUSTIVE=1` (.ci/steps/07-exhaustive-persistence.sh); every
    /// 23rd otherwise (all 8 bits of it), to keep `swift test` (and its TSan run) light.
    static let stride = ProcessInfo.processInfo.environment["APPSTATEKIT_EXHAUSTIVE"] == "1" ? 1 : 23

    enum Layout: String, CaseIterable, CustomTestStringConvertible {
        /// The single file, flipped.
        case singleFile
        /// The log after several appends, flipped.
        case logAppends
        /// The file written by a compaction (the log then empty), flipped.
        case afterCompaction
        var testDescription: String { rawValue }
        var flipped: String { self == .logAppends ? ExhaustiveBitFlipTests.path + ".log" : ExhaustiveBitFlipTests.path }
    }

    private func store(_ layout: Layout, _ files: InMemoryFileSystem) -> FileKeyValueStore {
        switch layout {
        case .singleFile: FileKeyValueStore(path: Self.path, fileSystem: files)
        case .logAppends: FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files)
        case .afterCompaction: FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files, compactionThreshold: 1)
        }
    }

    /// The store each run starts from, and each key's acknowledged value.
    private func base(_ layout: Layout) throws -> (InMemoryFileSystem, [String: Int]) {
        let files = InMemoryFileSystem()
        let store = store(layout, files)
        var acknowledged: [String: Int] = [:]
        for (index, key) in Self.keys.enumerated() {
            try store.writeObject(index + 1, forKey: key)
            acknowledged[key] = index + 1
        }
        try store.writeObject(20, forKey: "beta")
        acknowledged["beta"] = 20
        return (files, acknowledged)
    }

    /// The byte ranges that hold each key's current value in `bytes` of the flipped file.
    private func regions(_ layout: Layout, _ bytes: Data) -> [String: [Range<Int>]] {
        var regions: [String: [Range<Int>]] = [:]
        if layout == .logAppends {
            // Each record, and the keys its payload names.
            var offset = StoreLog.headerLength
            while offset + StoreLog.frameLength <= bytes.count {
                let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
                let end = offset + StoreLog.frameLength + length
                let payload = String(decoding: bytes[(offset + StoreLog.frameLength)..<end], as: UTF8.self)
                for key in Self.keys where payload.contains("\"\(key)\"") { regions[key, default: []].append(offset..<end) }
                offset = end
            }
        } else {
            // Pretty-printed with sorted keys: a key's bytes run from its name to the next name.
            let text = String(decoding: bytes, as: UTF8.self)
            let starts = Self.keys.compactMap { key in text.range(of: "\"\(key)\"").map { (key, text.utf8.distance(from: text.startIndex, to: $0.lowerBound)) } }
                .sorted { $0.1 < $1.1 }
            for (index, (key, start)) in starts.enumerated() {
                let end = index + 1 < starts.count ? starts[index + 1].1 : bytes.count
                regions[key] = [start..<end]
            }
        }
        return regions
    }

    @Test("every key reads its acknowledged value or is reported damaged, kept aside; no untouched key is lost", arguments: Layout.allCases)
    func everyBit(_ layout: Layout) throws {
        let (template, acknowledged) = try base(layout)
        let original = try #require(template.contents(atPath: layout.flipped))
        if layout == .afterCompaction { #expect(String(decoding: original, as: UTF8.self).contains("\"delta\""), "a compaction wrote the file") }
        let keyRegions = regions(layout, original)
        var tried = 0
        for position in Swift.stride(from: 0, to: original.count, by: Self.stride) {
            for bit in 0..<8 {
                let (files, _) = try base(layout)
                var damaged = original
                damaged[position] ^= UInt8(1 << bit)
                files.createFile(atPath: layout.flipped, contents: damaged)
                tried += 1
                let context = "\(layout), bit \(bit) of byte \(position)"
                // Only the flipped key's own bytes — or, when the whole file stops being what it
                // must be (JSON; a log header), every key — may be lost, and then only reported.
                let wholeFile = layout == .logAppends
                    ? position < 8
                    : (try? JSONSerialization.jsonObject(with: damaged)) == nil
                func touched(_ key: String) -> Bool { wholeFile || keyRegions[key, default: []].contains { $0.contains(position) } }

                let reports = capturingLogs {
                    let reader = store(layout, files)
                    for key in Self.keys {
                        do {
                            let value = try reader.readObject(forKey: key) as? Int
                            #expect(value == acknowledged[key] || touched(key), "\(key) reads \(String(describing: value)): \(context)")
                        } catch let error as PersistenceError where error.kind == .corruptData {
                            continue  // reported damaged
                        } catch {
                            Issue.record("\(key): \(error): \(context)")
                        }
                    }
                    do {
                        try reader.writeObject(99, forKey: "after")
                    } catch {
                        Issue.record("no write after the flip: \(error): \(context)")
                    }
                }
                let kept = files.contentsOfDirectory(atPath: Self.directory).filter { $0.contains(".corrupt-") }
                let keptDamage = kept.contains { files.contents(atPath: "\(Self.directory)/\($0)") == damaged }
                let fresh = store(layout, files)
                #expect(try fresh.readObject(forKey: "after") as? Int == 99, "\(context)")
                for key in Self.keys {
                    let value: Int?
                    do {
                        value = try fresh.readObject(forKey: key) as? Int
                    } catch let error as PersistenceError where error.kind == .corruptData {
                        continue  // still reported damaged, per key
                    } catch {
                        Issue.record("\(key) after the write: \(error): \(context)")
                        continue
                    }
                    guard value != acknowledged[key] else { continue }
                    #expect(touched(key), "\(key) lost although the flip didn't touch it: \(context)")
                    // A value that is gone or changed: reported with the damage kept aside — or,
                    // in the JSON file, an edit of that key's own value the JSON can't tell.
                    #expect((!reports.isEmpty && keptDamage) || (layout != .logAppends && !wholeFile), "\(key) reads \(String(describing: value)) unreported: \(context)")
                }
            }
        }
        diagnostic("exhaustive bit flips (\(layout)): \(original.count) bytes, \(tried) flips tried")
        #expect(tried == (original.count + Self.stride - 1) / Self.stride * 8)
    }

    @Test("a FileState file: every flip reads the acknowledged value, or is reported and kept aside, or is valid JSON of another value (an edit)")
    func fileStateEveryBit() throws {
        let acknowledged = ["alpha", "beta", "gamma"]
        let template = InMemoryFileSystem()
        try Application.withOverrides({ $0.override(\.fileManager, with: template as any FileManaging) }) {
            try Application().fileState(initial: [String](), path: Self.directory, filename: "list.json", isBase64Encoded: false).write(acknowledged)
        }
        let original = try #require(template.contents(atPath: "\(Self.directory)/list.json"))
        var tried = 0
        for position in Swift.stride(from: 0, to: original.count, by: Self.stride) {
            for bit in 0..<8 {
                let files = InMemoryFileSystem()
                var damaged = original
                damaged[position] ^= UInt8(1 << bit)
                files.createFile(atPath: "\(Self.directory)/list.json", contents: damaged)
                tried += 1
                let context = "bit \(bit) of byte \(position)"
                let edit = try? JSONDecoder().decode([String].self, from: damaged)
                var readFailed = false
                _ = capturingLogs {
                    Application.withOverrides({ $0.override(\.fileManager, with: files as any FileManaging) }) {
                        let state = Application().fileState(initial: [String](), path: Self.directory, filename: "list.json", isBase64Encoded: false)
                        do {
                            let value = try state.read()
                            #expect(value == acknowledged || value == edit, "reads \(value): \(context)")
                        } catch {
                            readFailed = true
                        }
                        do {
                            try state.write(["after"])
                            #expect(try state.read() == ["after"], "\(context)")
                        } catch {
                            Issue.record("no write after the flip: \(error): \(context)")
                        }
                    }
                }
                if readFailed {
                    let kept = files.contentsOfDirectory(atPath: Self.directory).filter { $0.contains(".corrupt-") }
                    #expect(kept.contains { files.contents(atPath: "\(Self.directory)/\($0)") == damaged }, "the damaged file is kept aside: \(context)")
                }
            }
        }
        diagnostic("exhaustive bit flips (FileState): \(original.count) bytes, \(tried) flips tried")
        #expect(tried == (original.count + Self.stride - 1) / Self.stride * 8)
    }
}
