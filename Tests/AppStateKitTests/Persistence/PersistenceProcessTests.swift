import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// What a series of kill rounds found (also used by `AsyncWritesProcessTests`).
struct KillTally: CustomStringConvertible {
    var kills = 0
    var acknowledged = 0
    /// Rounds where the file held less than the last acknowledged value.
    var lost = 0
    /// Rounds where the file held more than the one write in flight could explain.
    var impossible = 0
    /// Rounds where the file could not be read or decoded.
    var unreadable = 0

    /// Checks one round: `stored` must be the last acknowledged value or the one in flight.
    mutating func record(acknowledged values: [Int], stored: Int) {
        acknowledged += values.count
        let last = values.last ?? -1
        if stored < last { lost += 1 }
        if stored > last + 1 { impossible += 1 }
    }

    var description: String {
        "\(kills) SIGKILLs, \(acknowledged) acknowledged writes, \(lost) lost, \(unreadable) unreadable, \(impossible) impossible"
    }
}

@Suite("Persistence across processes", .isolatedApplication, .reportsAsDiagnostics, .realFileSystem, .serialized)
struct PersistenceProcessTests {
    @Test("SIGKILL at random moments never loses an acknowledged StoredState write nor corrupts the store", arguments: [
        nil,
        // The append-only log layout; then with the log compacted every few writes, so kills
        // land in compactions too.
        "log", "200",
    ])
    func storeSurvivesKill(layout: String?) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        var tally = KillTally()
        for _ in 0..<PersistenceChild.killRounds {
            let acknowledged = try PersistenceChild.runAndKill(["store-sequence", path, "1000000"] + (layout.map { [$0] } ?? []))
            tally.kills += 1
            do {
                let stored = try FileKeyValueStore(path: path).readObject(forKey: "Child/sequence") as? Int ?? -1
                tally.record(acknowledged: acknowledged, stored: stored)
            } catch {
                tally.unreadable += 1
            }
        }
        diagnostic("StoredState kill test (layout \(layout ?? "default")): \(tally)")
        #expect(tally.lost == 0, "\(tally)")
        #expect(tally.unreadable == 0, "\(tally)")
        #expect(tally.impossible == 0, "\(tally)")
        #expect(tally.acknowledged >= tally.kills, "every round waits for at least one acknowledged write")

        // The next writer removes the temporary files the killed children left behind, once
        // they are old enough to be provably abandoned (issue 42: a young one may be a live
        // writer's in another container).
        for name in try PersistenceChild.temporaryFiles(in: directory.path) {
            try AbandonedTemporaryFilesTests.age(directory.file(name))
        }
        try FileKeyValueStore(path: path).writeObject(0, forKey: "after")
        #expect(try PersistenceChild.temporaryFiles(in: directory.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".corrupt-") })
    }

    @Test("SIGKILL while 8 threads write at once never loses a write acknowledged from a shared batch", arguments: [nil, "log"])
    func concurrentWritersSurviveKill(layout: String?) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let threads = 8
        var tally = KillTally()
        var concurrentRounds = 0
        for round in 0..<PersistenceChild.killRounds {
            // A store of its own per round: every child starts its sequences at 0.
            let path = directory.file("defaults-\(round).json")
            let lines = try PersistenceChild.runAndKillLines(["store-writers", path, "\(threads)", "1000000"] + (layout.map { [$0] } ?? []))
            tally.kills += 1
            // Each thread's acknowledged values ("<thread> <value>" lines), in order.
            var acknowledged = [[Int]](repeating: [], count: threads)
            for line in lines {
                let fields = line.split(separator: " ").compactMap { Int($0) }
                if fields.count == 2, acknowledged.indices.contains(fields[0]) { acknowledged[fields[0]].append(fields[1]) }
            }
            if acknowledged.filter({ !$0.isEmpty }).count > 1 { concurrentRounds += 1 }
            do {
                let store = FileKeyValueStore(path: path)
                for (thread, values) in acknowledged.enumerated() {
                    tally.record(acknowledged: values, stored: try store.readObject(forKey: "Child/w\(thread)") as? Int ?? -1)
                }
            } catch {
                tally.unreadable += 1
            }
        }
        diagnostic("StoredState kill test, \(threads) concurrent writers (layout \(layout ?? "default")): \(tally); rounds with several writers acknowledged: \(concurrentRounds)")
        #expect(tally.lost == 0, "\(tally)")
        #expect(tally.unreadable == 0, "\(tally)")
        #expect(tally.impossible == 0, "\(tally)")
        #expect(tally.acknowledged >= tally.kills, "every round waits for at least one acknowledged write")
        #expect(concurrentRounds > 0, "the writers ran concurrently in at least one round")
    }

    @Test("SIGKILL at random moments leaves the FileState file old or new and complete")
    func fileStateSurvivesKill() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("payload.json")
        var tally = KillTally()
        for _ in 0..<PersistenceChild.killRounds {
            let acknowledged = try PersistenceChild.runAndKill(["file-sequence", directory.path, "payload.json", "1000000"])
            tally.kills += 1
            do {
                let stored = try LocalFiles.real.contents(ofFile: path).map {
                    try JSONDecoder().decode(ChildPayload.self, from: $0).sequence
                } ?? -1
                tally.record(acknowledged: acknowledged, stored: stored)
            } catch {
                tally.unreadable += 1
            }
        }
        diagnostic("FileState kill test: \(tally)")
        #expect(tally.lost == 0, "\(tally)")
        #expect(tally.unreadable == 0, "\(tally)")
        #expect(tally.impossible == 0, "\(tally)")
        #expect(tally.acknowledged >= tally.kills, "every round waits for at least one acknowledged write")

        var file = Application().fileState(initial: ChildPayload(sequence: -1, padding: []), path: directory.path, filename: "payload.json", isBase64Encoded: false)
        #expect(file.value.sequence >= 0)
        for name in try PersistenceChild.temporaryFiles(in: directory.path) {
            try AbandonedTemporaryFilesTests.age(directory.file(name))
        }
        file.value = ChildPayload(sequence: -2, padding: [])
        #expect(try PersistenceChild.temporaryFiles(in: directory.path).isEmpty)
    }

    @Test("two processes writing 2 × 200 different keys to one store lose nothing, a shared key ends with a written value, and a third process sees it all", arguments: [
        nil,
        // The append-only log layout; then both processes append and compact the log (every few
        // writes) concurrently.
        "log", "300",
    ])
    func concurrentProcesses(layout: String?) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        // This process's store has already read (and cached) the file before the children write.
        let store = FileKeyValueStore(path: path)
        try store.writeObject(-1, forKey: "Child/shared")
        #expect(store.object(forKey: "Child/a-0") == nil)
        let chosen = layout.map { [$0] } ?? []
        let first = try PersistenceChild.start(["store-keys", path, "a", "200"] + chosen)
        let second = try PersistenceChild.start(["store-keys", path, "b", "200"] + chosen)
        let firstSaid = first.read()
        let secondSaid = second.read()
        #expect(first.waitForExit(), "the first child did not finish within a minute")
        #expect(second.waitForExit(), "the second child did not finish within a minute")
        #expect(first.process.terminationStatus == 0)
        #expect(second.process.terminationStatus == 0)
        #expect(String(decoding: firstSaid, as: UTF8.self) == "done\n")
        #expect(String(decoding: secondSaid, as: UTF8.self) == "done\n")

        var missing: [String] = []
        for prefix in ["a", "b"] {
            for index in 0..<200 where store.object(forKey: "Child/\(prefix)-\(index)") as? Int != index {
                missing.append("\(prefix)-\(index)")
            }
        }
        #expect(missing.isEmpty, "lost keys: \(missing)")
        #expect(try store.keys.count == 401, "the children's writes are seen by this process's next read")
        // Both children write "shared" = 0…199 in step; whichever wrote last wrote 199.
        #expect(store.object(forKey: "Child/shared") as? Int == 199)
    }
}

/// The child's FileState payload.
private struct ChildPayload: Codable, Sendable {
    var sequence: Int
    var padding: [String]
}
