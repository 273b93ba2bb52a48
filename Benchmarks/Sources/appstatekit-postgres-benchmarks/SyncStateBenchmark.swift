// PostgresSyncStore measured through the public SyncState API, as an application uses it:
// `Application.promote(\.syncStore, with: store)`, then reads, `write`, another process's
// `Application.values(of:)` loop, and fleet `update` from 1, 4 and 8 processes.
import Foundation
#if PostgreSQL
import AppStateKit
import AppStateKitPostgres

extension Application {
    var benchSyncRead: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "read") }
    var benchStateRead: State<Int> { state(initial: 0, feature: "Bench", id: "stateRead") }
    var benchLatency: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "latency") }
    var benchPropagation: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "propagation") }
    var benchCounter: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "counter") }
}

/// Keeps the optimiser from deleting a measured read.
@inline(never) func sink<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

enum SyncStateBenchmark {
    static func run(quick: Bool, run: UInt32) async throws {
        let table = "bench_syncstate_\(run)"
        try await createTable(table)
        try await withStore(table: table) { store in
            Application.promote(\.syncStore, with: store)

            // 4. Reads, served from the entry's cache, interleaved with State reads.
            _ = Application.syncState(\.benchSyncRead).value
            let (stateRead, syncRead) = readNanoseconds(rounds: quick ? 5 : 21, reads: quick ? 200_000 : 1_000_000)
            print(String(format: "4. read (PostgresSyncStore installed): State %.1f ns, SyncState %.1f ns (%.2f× State), medians of interleaved rounds",
                         stateRead, syncRead, syncRead / stateRead))

            // 5. `try await SyncState.write(_:)` until the store acknowledged it, alternating
            //    with a raw `store.write` of another key, so both see the same server load.
            let writes = quick ? 200 : 2000
            var latencies: [Int64] = []
            var raw: [Int64] = []
            for index in 1...writes {
                var start = now()
                try await Application.syncState(\.benchLatency).write(index)
                latencies.append(now() - start)
                start = now()
                _ = try await store.write(Data(String(index).utf8), forKey: "raw")
                raw.append(now() - start)
            }
            print("5. SyncState.write, acknowledged: \(milliseconds(latencies))")
            print("   store.write alternating with it: \(milliseconds(raw))")

            // 6. Propagation to another process's values() loop, one write at a time: the next
            //    write starts after the child reported the previous value.
            let propagations = quick ? 100 : 1000
            let listener = try Child(["values", table, String(propagations)])
            listener.waitFor("READY")
            try await Task.sleep(for: .milliseconds(200))
            var fromAck: [Int64] = []
            var fromStart: [Int64] = []
            for value in 1...propagations {
                let start = now()
                try await Application.syncState(\.benchPropagation).write(value)
                let acknowledged = now()
                // The loop may repeat or skip values; wait for this one.
                while true {
                    guard let line = listener.nextLine() else {
                        print("appstatekit-postgres-benchmarks: the values() child exited before it saw \(value)")
                        exit(1)
                    }
                    let fields = line.split(separator: " ")
                    if fields.count == 2, Int(fields[1]) == value, let received = Int64(fields[0]) {
                        fromAck.append(received - acknowledged)
                        fromStart.append(received - start)
                        break
                    }
                }
            }
            listener.process.waitUntilExit()
            print("6. propagation, SyncState.write acknowledged → other process's values() loop: \(milliseconds(fromAck))")
            print("   propagation, SyncState.write called → other process's values() loop: \(milliseconds(fromStart))")
        }

        // 7. Fleet `update { $0 += 1 }`: N processes × K updates; the counter must end at N × K.
        let perProcess = quick ? 50 : 300
        for processes in [1, 4, 8] {
            let fleetTable = "bench_syncstate_fleet_\(processes)_\(run)"
            try await createTable(fleetTable)
            let children = try (0..<processes).map { _ in try Child(["update", fleetTable, String(perProcess)]) }
            for child in children { child.waitFor("READY") }
            let start = now()
            for child in children { child.send("go") }
            var gaveUp = 0
            for child in children {
                let reply = child.nextLine() ?? "no reply (exited)"
                guard reply.hasPrefix("done "), let count = Int(reply.dropFirst(5)) else {
                    print("appstatekit-postgres-benchmarks: SyncState fleet benchmark: a child of \(processes) failed: \(reply)")
                    exit(1)
                }
                gaveUp += count
                child.process.waitUntilExit()
            }
            let seconds = Double(now() - start) / 1e9
            let final = try await withStore(table: fleetTable) { store in
                Application.promote(\.syncStore, with: store)
                return try await Application.syncState(\.benchCounter).read()
            }
            let expected = processes * perProcess
            guard final == expected else {
                print("appstatekit-postgres-benchmarks: SyncState fleet benchmark: \(processes) processes × \(perProcess) updates left the counter at \(final), expected \(expected) — increments were lost")
                exit(1)
            }
            print(String(format: "7. fleet SyncState.update, %d process%@: %.0f commits/s (final value %d = %d × %d; %d updates gave up with contention and were retried)",
                         processes, processes == 1 ? "" : "es", Double(expected) / seconds, final, processes, perProcess, gaveUp))
        }
    }

    /// Median ns per read of a State and of a SyncState, measured in alternating rounds.
    private static func readNanoseconds(rounds: Int, reads: Int) -> (state: Double, sync: Double) {
        var state: [Double] = []
        var sync: [Double] = []
        for _ in 0..<rounds {
            var start = now()
            for _ in 0..<reads { sink(Application.state(\.benchStateRead).value) }
            state.append(Double(now() - start) / Double(reads))
            start = now()
            for _ in 0..<reads { sink(Application.syncState(\.benchSyncRead).value) }
            sync.append(Double(now() - start) / Double(reads))
        }
        return (state.sorted()[rounds / 2], sync.sorted()[rounds / 2])
    }

    /// The SyncState-level child roles, on a running, connected store:
    /// - `values <table> <count>`: prints "<received ns> <value>" for every value its
    ///   `Application.values(of:)` loop receives, until `count`;
    /// - `update <table> <K>`: waits for "go", commits K increments with `update { $0 += 1 }`,
    ///   prints "done <updates that gave up>" or the error.
    static func runChild(role: String, arguments: [String], store: PostgresSyncStore) async throws {
        Application.promote(\.syncStore, with: store)
        switch role {
        case "values":
            let count = Int(arguments[3])!
            var ready = false
            for await value in Application.values(of: \.benchPropagation) {
                if !ready {
                    ready = true
                    say("READY")
                }
                say("\(now()) \(value)")
                if value == count { break }
            }
        case "update":
            _ = Application.syncState(\.benchCounter).value
            say("READY")
            _ = readLine()
            // An update that gives up (`contention`: lost `maxAttempts` = 100 times in a row)
            // committed nothing; it is counted and the increment tried again, as a caller would.
            var gaveUp = 0
            do {
                for _ in 0..<Int(arguments[3])! {
                    while true {
                        do {
                            try await Application.syncState(\.benchCounter).update { $0 += 1 }
                            break
                        } catch let error as SyncStoreError where error.kind == .contention {
                            gaveUp += 1
                        }
                    }
                }
                say("done \(gaveUp)")
            } catch {
                say("error \(error)")
            }
        default:
            fatalError("unknown child role \(role)")
        }
    }
}
#endif
