#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Several processes sharing one table: fleet-atomic increments, propagation to another
/// process's feed, and a writer killed with SIGKILL.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresMultiProcessTests {
    @Test func threeProcessesIncrementingThreeHundredTimesEachEndAtNineHundred() async throws {
        let table = PostgresTestServer.uniqueTable("counter")
        // Create the table first so the children don't race on CREATE TABLE.
        try await PostgresTestServer.withStore(table: table, dropTable: false) { _, _ in }
        let children = try (0..<3).map { _ in try PostgresChild(["increment", table, "counter", "300"]) }
        for var child in children {
            let done = child.waitFor("DONE", timeout: .seconds(300))
            #expect(done)
            #expect(child.waitForExit() == 0)
        }
        try await PostgresTestServer.withStore(table: table) { store, _ in
            let counter = try await store.fetchRecord(forKey: "counter")
            #expect(PostgresTestServer.text(counter) == "900")
            #expect(counter?.version == 900)
        }
    }

    /// A cold start: three processes (the owner role, which may create the table) start together
    /// on a database without the table and call `SyncState.update` at once, before their
    /// `run()` has found or created anything. Every update waits for the table and commits.
    @Test func threeProcessesStartingTogetherOnAnEmptyDatabaseEndAtExactlyNineHundred() async throws {
        let table = PostgresTestServer.uniqueTable("cold")
        let started = ContinuousClock.now
        let children = try (0..<3).map { _ in try PostgresChild(["cold-increment", table, "Fleet/counter", "300"], asOwner: true) }
        for var child in children {
            let done = child.waitFor("DONE", timeout: .seconds(300))
            #expect(done)
            #expect(child.waitForExit() == 0)
        }
        let elapsed = ContinuousClock.now - started
        try await PostgresTestServer.withStore(table: table) { store, _ in
            let counter = try await store.fetchRecord(forKey: "Fleet/counter")
            print("cold start: 3 processes x 300 updates on a table none of them found -> \(PostgresTestServer.text(counter) ?? "nil") (\(elapsed))")
            #expect(PostgresTestServer.text(counter) == "900")
            #expect(counter?.version == 900)
        }
    }

    /// A rolling deploy: SIGTERM reaches a process whose setter writes are still queued; its
    /// ServiceGroup (client first, store second) stops the store first, which sends them all
    /// before run() returns, while the client still runs.
    @Test func sigtermDrainsEveryQueuedSetterWriteBeforeTheStoreStops() async throws {
        let table = PostgresTestServer.uniqueTable("drain")
        let count = 40
        try await PostgresTestServer.withStore(table: table) { store, _ in
            var child = try PostgresChild(["sigterm-drain", table, "Drain", String(count)])
            let set = child.waitFor("SET")
            #expect(set)
            kill(child.process.processIdentifier, SIGTERM)
            let stopped = child.waitFor("STOPPED", timeout: .seconds(60))
            #expect(stopped)
            #expect(child.waitForExit() == 0)
            let records = try await store.snapshot()
            let committed = (0..<count).filter { index in
                records.contains { $0.key == "Drain/k\(index)" && PostgresTestServer.text($0) == String(index + 1) }
            }.count
            print("shutdown drain: \(committed) of \(count) setter writes assigned just before SIGTERM were committed")
            #expect(committed == count)
        }
    }

    @Test func aValueWrittenInOneProcessReachesAnotherProcesssFeed() async throws {
        let table = PostgresTestServer.uniqueTable("propagate")
        try await PostgresTestServer.withStore(table: table) { store, _ in
            var watcher = try PostgresChild(["watch", table, "App.flags", #"{"beta":true}"#])
            let ready = watcher.waitFor("READY")
            #expect(ready)
            _ = try await store.write(.json(#"{"beta":true}"#), forKey: "App.flags")
            let seen = watcher.waitFor("SEEN", timeout: .seconds(30))
            #expect(seen)
            #expect(watcher.waitForExit() == 0)
        }
    }

    @Test func aWriterKilledWithSIGKILLLosesNoAcknowledgedWrite() async throws {
        let table = PostgresTestServer.uniqueTable("sigkill")
        try await PostgresTestServer.withStore(table: table) { store, _ in
            for round in 0..<5 {
                let key = "seq\(round)"
                var writer = try PostgresChild(["write-acks", table, key])
                var lastAcknowledged = 0
                // Kill after a varying number of acknowledged writes, mid-sequence.
                let killAfter = 20 + round * 37
                while lastAcknowledged < killAfter, let line = writer.nextLine(timeout: .seconds(60)) {
                    let fields = line.split(separator: " ")
                    if fields.first == "ACK", let sequence = Int(fields[1]) { lastAcknowledged = sequence }
                }
                writer.kill()
                // Lines written before the kill may still be in the pipe.
                while let line = writer.nextLine(timeout: .milliseconds(200)) {
                    let fields = line.split(separator: " ")
                    if fields.first == "ACK", let sequence = Int(fields[1]) { lastAcknowledged = sequence }
                }
                #expect(lastAcknowledged >= killAfter)
                let stored = try await store.fetchRecord(forKey: key)
                let value = try #require(PostgresTestServer.text(stored).flatMap { Int($0) })
                // Every acknowledged write is there; at most the one in flight was added.
                #expect(value == lastAcknowledged || value == lastAcknowledged + 1)
                #expect(stored?.version == Int64(value))
            }
        }
    }
}
}
#endif
