import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// The kill rounds of `PersistenceProcessTests` for the `async` forms: a write acknowledged
/// once `writeDurably(_:)` returned survives SIGKILL, as one acknowledged once `write(_:)`
/// returned does. (`.ci/steps/08-kill-rounds.sh` runs them with 200 kills.)
@Suite("Async durable writes across processes", .isolatedApplication, .reportsAsDiagnostics, .realFileSystem, .serialized)
struct AsyncWritesProcessTests {
    @Test("SIGKILL while 8 tasks await writeDurably never loses an acknowledged write", arguments: [nil, "log"])
    func asyncWritersSurviveKill(layout: String?) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let tasks = 8
        var tally = KillTally()
        var concurrentRounds = 0
        for round in 0..<PersistenceChild.killRounds {
            let path = directory.file("defaults-\(round).json")
            let lines = try PersistenceChild.runAndKillLines(["async-store-writers", path, "\(tasks)", "1000000"] + (layout.map { [$0] } ?? []))
            tally.kills += 1
            var acknowledged = [[Int]](repeating: [], count: tasks)
            for line in lines {
                let fields = line.split(separator: " ").compactMap { Int($0) }
                if fields.count == 2, acknowledged.indices.contains(fields[0]) { acknowledged[fields[0]].append(fields[1]) }
            }
            if acknowledged.filter({ !$0.isEmpty }).count > 1 { concurrentRounds += 1 }
            do {
                let store = FileKeyValueStore(path: path)
                for (task, values) in acknowledged.enumerated() {
                    tally.record(acknowledged: values, stored: try store.readObject(forKey: "Child/w\(task)") as? Int ?? -1)
                }
            } catch {
                tally.unreadable += 1
            }
        }
        diagnostic("StoredState kill test, \(tasks) writer tasks awaiting writeDurably (layout \(layout ?? "default")): \(tally); rounds with several writers acknowledged: \(concurrentRounds)")
        #expect(tally.lost == 0, "\(tally)")
        #expect(tally.unreadable == 0, "\(tally)")
        #expect(tally.impossible == 0, "\(tally)")
        #expect(tally.acknowledged >= tally.kills, "every round waits for at least one acknowledged write")
        #expect(concurrentRounds > 0, "the writers ran concurrently in at least one round")
    }

    @Test("SIGKILL while a task awaits FileState.writeDurably leaves the file old or new and complete")
    func asyncFileStateSurvivesKill() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("payload.json")
        var tally = KillTally()
        for _ in 0..<PersistenceChild.killRounds {
            let acknowledged = try PersistenceChild.runAndKill(["async-file-sequence", directory.path, "payload.json", "1000000"])
            tally.kills += 1
            do {
                let stored = try FileManager.default.contents(atPath: path).map {
                    try JSONDecoder().decode(AsyncChildPayload.self, from: $0).sequence
                } ?? -1
                tally.record(acknowledged: acknowledged, stored: stored)
            } catch {
                tally.unreadable += 1
            }
        }
        diagnostic("FileState kill test, writeDurably: \(tally)")
        #expect(tally.lost == 0, "\(tally)")
        #expect(tally.unreadable == 0, "\(tally)")
        #expect(tally.impossible == 0, "\(tally)")
        #expect(tally.acknowledged >= tally.kills, "every round waits for at least one acknowledged write")
    }
}

/// The part of the child's FileState payload the test reads back.
private struct AsyncChildPayload: Decodable {
    var sequence: Int
}
