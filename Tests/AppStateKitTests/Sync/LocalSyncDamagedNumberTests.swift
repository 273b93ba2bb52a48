import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// Every number the embedded store reads from its shared file is checked before arithmetic
/// (issue 41, item 1): versions near `Int64.max`, times beyond ±100 years of now and numbers
/// nothing can hold make their record damaged — reported once with its key, other keys working,
/// a write to the key repairing it — and never trap a reader or writer.
@Suite("LocalSyncStore numbers from the file", .isolatedApplication, .reportsAsDiagnostics)
struct LocalSyncDamagedNumberTests {
    let path = "/data/app/sync.json"
    /// 2026-12-07, the tombstone clock of these tests.
    static let now = Date(timeIntervalSince1970: 1_796_601_600)

    func store(_ files: InMemoryFileSystem) -> LocalSyncStore {
        LocalSyncStore(path: path, changeDetection: .polling(every: .seconds(3600)), fileSystem: files, wallClock: { Self.now })
    }

    /// A store file with one good key, `App/ok` (version 3), and `record` as `App/bad`.
    func file(bad record: String, sequence: String = "5") -> String {
        """
        {
          "format" : 1,
          "epoch" : "E",
          "sequence" : \(sequence),
          "records" : {
            "App/bad" : \(record),
            "App/ok" : {"version":3,"value":"1"}
          }
        }
        """
    }

    static let hostileRecords: [(String, String)] = [
        (#"{"version":9223372036854775807,"value":"1"}"#, "\"version\""),
        (#"{"version":9223372036854775806,"value":"1"}"#, "\"version\""),
        (#"{"version":4611686018427387905,"value":"1"}"#, "\"version\""),
        (#"{"version":9223372036854775808,"value":"1"}"#, "\"version\""),
        (#"{"version":-9223372036854775808,"value":"1"}"#, "\"version\""),
        (#"{"version":1e400,"value":"1"}"#, "\"version\""),
        (#"{"version":true,"value":"1"}"#, "\"version\""),
        (#"{"version":"4","value":"1"}"#, "\"version\""),
        (#"{"version":4.5,"value":"1"}"#, "\"version\""),
        (#"{"version":4,"value":null,"removedAt":-9223372036854775808}"#, "\"removedAt\""),
        (#"{"version":4,"value":null,"removedAt":9223372036854775807}"#, "\"removedAt\""),
        (#"{"version":4,"value":null,"removedAt":-4000000000}"#, "\"removedAt\""),
        (#"{"version":4,"value":null,"removedAt":9999999999}"#, "\"removedAt\""),
        (#"{"version":4,"value":1e400}"#, "\"value\""),
        ("{\"version\":4,\"value\":" + String(repeating: "[", count: 100) + "1" + String(repeating: "]", count: 100) + "}", "\"value\""),
    ]

    @Test("a hostile number in one record damages that record only: other keys read and write, the key is reported once, and writing it repairs it", arguments: hostileRecords)
    func hostileNumber(record: String, field: String) async throws {
        let messages = collectErrors()
        let files = InMemoryFileSystem()
        files.createFile(atPath: path, text: file(bad: record))
        let store = store(files)

        #expect(try store.cachedRecord(forKey: "App/ok") == SyncRecord(key: "App/ok", value: Data("1".utf8), version: 3))
        let error = #expect(throws: SyncStoreError.self) { _ = try store.cachedRecord(forKey: "App/bad") }
        #expect(error?.kind == .corruptRecord)
        #expect(error?.description.contains("\"App/bad\"") == true && error?.description.contains(path) == true, "\(String(describing: error))")
        #expect(try await store.snapshot().map(\.key) == ["App/ok"])
        // Reported once, with its key and field, however often it is read.
        _ = try? store.cachedRecord(forKey: "App/bad")
        let reports = messages.messages.filter { $0.contains("\"App/bad\"") }
        #expect(reports.count == 1, "\(messages.messages)")
        #expect(reports.first?.contains(field) == true || field == "\"value\"", "\(reports)")

        // Other keys keep being written (this trapped on the version and time overflows).
        let ok = try await store.write(Data("2".utf8), forKey: "App/ok")
        #expect(ok.version > 3 && ok.version < 100, "\(ok)")
        let other = try await store.write(Data("3".utf8), forKey: "App/other")
        #expect(other.version == ok.version + 1)
        // The damaged record is written back as it was, still damaged.
        #expect(files.text(atPath: path)?.contains(record) == true)
        #expect(throws: SyncStoreError.self) { _ = try self.store(files).cachedRecord(forKey: "App/bad") }

        // A write to the damaged key repairs it, keeping the bytes aside.
        let repaired = try await store.write(Data("4".utf8), forKey: "App/bad")
        #expect(repaired.version == other.version + 1)
        let fresh = self.store(files)
        #expect(try fresh.cachedRecord(forKey: "App/bad") == repaired)
        #expect(try await fresh.snapshot().map(\.key) == ["App/bad", "App/ok", "App/other"])
        let aside = try files.contentsOfDirectory("/data/app").filter { $0.hasPrefix("sync.json.corrupt-record-") }
        #expect(aside.count == 1)
        #expect(files.text(atPath: "/data/app/" + (aside.first ?? "?"))?.contains(record) == true)
    }

    @Test("a sequence no version can follow is ignored and reported: versions continue from the records'", arguments: [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e400", "\"7\"", "null",
    ])
    func hostileSequence(sequence: String) async throws {
        let messages = collectErrors()
        let files = InMemoryFileSystem()
        files.createFile(atPath: path, text: file(bad: #"{"version":5,"value":"0"}"#, sequence: sequence))
        let store = store(files)
        #expect(try store.cachedRecord(forKey: "App/bad")?.version == 5)
        let written = try await store.write(Data("2".utf8), forKey: "App/ok")
        #expect(written.version == 6)
        #expect(messages.messages.filter { $0.contains("\"sequence\"") && $0.contains(path) }.count == 1, "\(messages.messages)")
    }

    @Test("a file whose versions reach the highest one a record may have is renumbered by the next write, under a new epoch that readers take as a replacement")
    func exhaustedSequence() async throws {
        let messages = collectErrors()
        let files = InMemoryFileSystem()
        let top = LocalSyncFile.maxVersion
        files.createFile(atPath: path, text: file(bad: #"{"version":\#(top),"value":"9"}"#, sequence: "\(top)"))
        let reader = store(files)
        let feed = reader.changeFeed()
        #expect(try reader.cachedRecord(forKey: "App/bad")?.version == top)

        let writer = store(files)
        let written = try await writer.write(Data("2".utf8), forKey: "App/other")
        #expect(written.version == 3)
        let renumbered = self.store(files)
        #expect(try await renumbered.snapshot().map { "\($0.key)@\($0.version)" } == ["App/bad@2", "App/ok@1", "App/other@3"])
        #expect(messages.messages.contains { $0.contains("renumbered") && $0.contains(path) })
        // More writes keep working.
        #expect(try await writer.write(Data("3".utf8), forKey: "App/bad").version == 4)

        _ = try reader.cachedRecord(forKey: "App/ok")
        var iterator = feed.makeAsyncIterator()
        guard case let .replaced(records)? = await iterator.next() else {
            Issue.record("expected a replacement")
            return
        }
        #expect(records.map(\.key) == ["App/bad", "App/ok", "App/other"])
    }

    @Test("a tombstone time far from now never overflows the collection's arithmetic, and a sane old one is still collected")
    func tombstoneTimes() async throws {
        let files = InMemoryFileSystem()
        let old = Int64(Self.now.timeIntervalSince1970) - 30 * 24 * 3600
        files.createFile(atPath: path, text: """
            {"format":1,"epoch":"E","sequence":4,"records":{
              "App/far" : {"version":1,"value":null,"removedAt":-9223372036854775808},
              "App/future" : {"version":2,"value":null,"removedAt":9223372036854775807},
              "App/old" : {"version":3,"value":null,"removedAt":\(old)},
              "App/ok" : {"version":4,"value":"1"}
            }}
            """)
        let store = store(files)
        let written = try await store.write(Data("2".utf8), forKey: "App/ok")
        #expect(written.version == 5)
        let text = try #require(files.text(atPath: path))
        #expect(!text.contains("App/old"), "collected: \(text)")
        #expect(text.contains("-9223372036854775808") && text.contains("9223372036854775807"), "the damaged records are kept: \(text)")
    }

    @Test("a value over the size limit written by a peer damages its key only")
    func hugeValue() async throws {
        let files = InMemoryFileSystem()
        let huge = String(repeating: "x", count: SyncLimits.maxValueBytes + 1)
        files.createFile(atPath: path, text: file(bad: #"{"version":4,"value":"\#(huge)"}"#))
        let store = store(files)
        let error = #expect(throws: SyncStoreError.self) { _ = try store.cachedRecord(forKey: "App/bad") }
        #expect(error?.description.contains("\(SyncLimits.maxValueBytes + 1) bytes") == true, "\(String(describing: error))")
        #expect(try store.cachedRecord(forKey: "App/ok")?.version == 3)
        #expect(try await store.write(Data("1".utf8), forKey: "App/bad").version == 6)
        #expect(files.contents(atPath: path)!.count < 1000)
    }
    @Test("a file over maxFileBytes is not read (its keys read as errors naming the limit); the next write keeps it aside by a hard link and carries over the records in its first maxFileBytes bytes")
    func fileOverTheLimit() async throws {
        let messages = collectErrors()
        let files = InMemoryFileSystem()
        let pad = String(repeating: "z", count: 4000)
        files.createFile(atPath: path, text: #"{"format":1,"epoch":"E","sequence":9,"records":{"#
            + #"\#n    "App/a" : {"version":1,"value":"1"},\#n    "App/z" : {"version":9,"value":"\#(pad)"}\#n}}"#)
        let store = LocalSyncStore(path: path, changeDetection: .polling(every: .seconds(3600)), maxFileBytes: 2048, fileSystem: files, wallClock: { Self.now })
        #expect(store.maxFileBytes == 2048)
        let error = #expect(throws: SyncStoreError.self) { _ = try store.cachedRecord(forKey: "App/a") }
        #expect(error?.description.contains("limit of 2048") == true && error?.description.contains(path) == true, "\(String(describing: error))")
        _ = try? store.cachedRecord(forKey: "App/a")
        #expect(messages.messages.filter { $0.contains("over its limit of 2048") }.count == 1, "\(messages.messages)")

        let written = try await store.write(Data("2".utf8), forKey: "App/b")
        #expect(written.version == 10)
        #expect(try store.cachedRecord(forKey: "App/a")?.value == Data("1".utf8))
        #expect(try store.cachedRecord(forKey: "App/z") == nil)
        let aside = try files.contentsOfDirectory("/data/app").filter { $0.hasPrefix("sync.json.corrupt-") }
        #expect(aside.count == 1)
        #expect(files.contents(atPath: "/data/app/" + (aside.first ?? "?"))?.count ?? 0 > 4000)
        // The default is 16 MiB.
        #expect(LocalSyncStore(path: path, fileSystem: files).maxFileBytes == 16 << 20)
    }
}
