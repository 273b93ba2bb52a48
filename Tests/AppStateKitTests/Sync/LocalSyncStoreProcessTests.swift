import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// The embedded store across real processes (the `sync-…` commands of
/// `AppStateKitPersistenceChild`).
@Suite("LocalSyncStore across processes", .serialized, .isolatedApplication)
struct LocalSyncStoreProcessTests {
    @Test("a value written in one process reaches another process's change feed, both ways")
    func propagation() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let store = LocalSyncStore(path: path)

        // This process listens, a child writes.
        let recorder = FeedRecorder(SyncChange.records(of: store.changeFeed()))
        let writer = try PersistenceChild.start(["sync-write", path, "App/flag", "1"])
        #expect(String(decoding: writer.read(), as: UTF8.self) == "0\n")
        #expect(writer.waitForExit())
        let seen = await recorder.wait { $0.contains { $0.key == "App/flag" } }
        #expect(seen.map(\.key) == ["App/flag"])
        #expect(seen.first?.value == Data("0".utf8))
        await recorder.cancel()

        // A child listens, this process writes.
        let watcher = try PersistenceChild.start(["sync-watch", path, "App/flag", "\"on\""])
        #expect(String(decoding: watcher.read { $0.contains(UInt8(ascii: "\n")) }, as: UTF8.self) == "ready\n")
        let written = try await store.write(Data("\"on\"".utf8), forKey: "App/flag")
        let said = String(decoding: watcher.read { String(decoding: $0, as: UTF8.self).contains("seen") }, as: UTF8.self)
        #expect(said == "seen \(written.version)\n")
        #expect(watcher.waitForExit())
        #expect(watcher.process.terminationStatus == 0)
    }

    @Test("3 processes × 200 compare-and-set increments of one key end at exactly 600")
    func contendedIncrements() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let children = try (0..<3).map { _ in try PersistenceChild.start(["sync-increment", path, "App/counter", "200"]) }
        var conflicts = 0
        for child in children {
            let said = String(decoding: child.read(), as: UTF8.self)
            #expect(said.hasPrefix("done "), "\(said)")
            conflicts += Int(said.dropFirst("done ".count).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(child.waitForExit())
            #expect(child.process.terminationStatus == 0)
        }
        let record = try #require(try LocalSyncStore(path: path).cachedRecord(forKey: "App/counter"))
        #expect(record.value.map { String(decoding: $0, as: UTF8.self) } == "600")
        diagnostic("LocalSyncStore contended increments: 600 commits, \(conflicts) conflicts retried")
    }

    @Test("SIGKILL at random moments never loses an acknowledged sync write nor leaves an unreadable file")
    func writerKilled() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        var kills = 0, acknowledged = 0, lost = 0, impossible = 0, unreadable = 0
        for _ in 0..<PersistenceChild.killRounds {
            let values = try PersistenceChild.runAndKill(["sync-write", path, "App/sequence", "1000000"])
            kills += 1
            acknowledged += values.count
            do {
                let record = try LocalSyncStore(path: path).cachedRecord(forKey: "App/sequence")
                let stored = record?.value.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? -1
                let last = values.last ?? -1
                if stored < last { lost += 1 }
                if stored > last + 1 { impossible += 1 }
            } catch {
                unreadable += 1
            }
        }
        let tally = "\(kills) SIGKILLs, \(acknowledged) acknowledged writes, \(lost) lost, \(unreadable) unreadable, \(impossible) impossible"
        diagnostic("LocalSyncStore kill test: \(tally)")
        #expect(lost == 0, "\(tally)")
        #expect(unreadable == 0, "\(tally)")
        #expect(impossible == 0, "\(tally)")
        #expect(acknowledged >= kills, "every round waits for at least one acknowledged write")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".corrupt-") })
    }
}
