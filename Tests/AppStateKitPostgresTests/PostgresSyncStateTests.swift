#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import PostgresNIO
import Synchronization
import Testing

extension Application {
    /// Declared like the child's entries (feature "Fleet"), so both name the same table keys.
    fileprivate var fleetFlags: SyncState<[String: Bool]> { syncState(initial: [:], feature: "Fleet", id: "flags") }
    fileprivate var fleetCounter: SyncState<Int> { syncState(initial: 0, feature: "Fleet", id: "counter") }
}

/// SyncState itself on PostgreSQL: what the declarations users write do across processes.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresSyncStateTests {
    @Test func aSyncStateWriteReachesAnotherProcesssValuesStream() async throws {
        let table = PostgresTestServer.uniqueTable("state_stream")
        try await PostgresTestServer.withStore(table: table) { store, _ in
            Application.promote(\.syncStore, with: store)
            var watcher = try PostgresChild(["state-watch", table, "Fleet/flags", "true"])
            let ready = watcher.waitFor("READY")
            #expect(ready)
            try await Application.syncState(\.fleetFlags).write(["beta": true])
            let seen = watcher.waitFor("SEEN", timeout: .seconds(30))
            #expect(seen, "the write never reached the other process's values(of:) loop")
            #expect(watcher.waitForExit() == 0)
            #expect(PostgresTestServer.text(try await store.fetchRecord(forKey: "Fleet/flags")) == #"{"beta":true}"#)
        }
    }

    /// The issue's figure at the level users write: three processes each run
    /// `Application.syncState(\.x).update { $0 += 1 }` 300 times on one counter, while this
    /// process runs 100 more and watches; every increment is counted exactly once.
    @Test func threeProcessesOfThreeHundredSyncStateUpdatesPlusThisOneEndAtTheExactSum() async throws {
        let table = PostgresTestServer.uniqueTable("state_counter")
        try await PostgresTestServer.withStore(table: table) { store, _ in
            Application.promote(\.syncStore, with: store)
            let children = try (0..<3).map { _ in try PostgresChild(["state-increment", table, "Fleet/counter", "300"]) }
            for _ in 0..<100 {
                try await Application.syncState(\.fleetCounter).update { $0 += 1 }
            }
            for var child in children {
                let done = child.waitFor("DONE", timeout: .seconds(300))
                #expect(done)
                #expect(child.waitForExit() == 0)
            }
            #expect(try await Application.syncState(\.fleetCounter).read() == 1_000)
            #expect(PostgresTestServer.text(try await store.fetchRecord(forKey: "Fleet/counter")) == "1000")
        }
    }

    /// The written error policy on a real table: a row of another type (put there with SQL, as
    /// another program or an older version might) reads as the initial value with one report;
    /// the throwing calls throw `typeMismatch`; nothing overwrites the row.
    @Test func aRowOfAnotherTypeReadsAsTheInitialValueAndIsNeverOverwritten() async throws {
        let table = PostgresTestServer.uniqueTable("wrong_type")
        try await PostgresTestServer.withStore(table: table) { store, client in
            let errors = Mutex<[String]>([])
            Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { message in errors.withLock { $0.append(message) } }))
            Application.promote(\.syncStore, with: store)
            try await client.query("INSERT INTO \(unescaped: table) (key, value, version) VALUES ('Fleet/counter', '\"a string\"', 1)")
            _ = try await store.fetchRecord(forKey: "Fleet/counter")

            #expect(Application.syncState(\.fleetCounter).value == 0)
            #expect(Application.syncState(\.fleetCounter).value == 0)
            let reports = errors.withLock { $0 }.filter { $0.contains("\"Fleet/counter\"") && $0.contains("type mismatch") }
            #expect(reports.count == 1, "reports: \(errors.withLock { $0 })")
            await #expect { try await Application.syncState(\.fleetCounter).read() } throws: { error in
                (error as? SyncStoreError)?.kind == .typeMismatch
            }
            await #expect { try await Application.syncState(\.fleetCounter).update { $0 += 1 } } throws: { error in
                (error as? SyncStoreError)?.kind == .typeMismatch
            }
            let row = try await store.fetchRecord(forKey: "Fleet/counter")
            #expect(row?.version == 1)
            #expect(PostgresTestServer.text(row) == #""a string""#)
        }
    }

    @Test func anIsolatedApplicationNeverTouchesTheRealStore() async throws {
        let table = PostgresTestServer.uniqueTable("isolation")
        try await PostgresTestServer.withStore(table: table) { store, _ in
            Application.promote(\.syncStore, with: store)
            try await Application.syncState(\.fleetCounter).write(7)
            let outer = Application.syncState(\.fleetCounter)

            try await Application.withIsolatedApplication {
                var inner = Application.syncState(\.fleetCounter)
                #expect(inner.value == 0, "an isolated application starts from the initial value")
                inner.value = 99
                try await Application.syncState(\.fleetCounter).write(100)
                try await Application.syncState(\.fleetFlags).write(["beta": true])
                var outerInside = outer
                outerInside.value = 8  // the outer handle still acts on the outer application
                _ = try await outer.read()
            }

            #expect(PostgresTestServer.text(try await store.fetchRecord(forKey: "Fleet/counter")) == "8")
            #expect(try await store.fetchRecord(forKey: "Fleet/flags") == nil, "the isolated write reached PostgreSQL")
            #expect(try await store.snapshot().map(\.key) == ["Fleet/counter"])
        }
    }
}
}
#endif
