import AppStateKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Application {
    var benchSyncRead: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "read") }
    var benchStateRead: State<Int> { state(initial: 0, feature: "Bench", id: "stateRead") }
    var benchSyncLatency: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "latency") }
    var benchSyncPropagation: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "propagation") }
    var benchSyncFleetCounter: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "counter") }
}

/// The embedded store measured through the public SyncState API, as an application uses it:
/// `Application.promote(\.syncStore, with: LocalSyncStore(path:))`, then reads, `write`,
/// another process's `Application.values(of:)` loop, and fleet `update` from N processes.
enum SyncStateFleetBenchmark {
    static func run(directory: String, quick: Bool) -> [[String]] {
        var rows: [[String]] = []
        let path = "\(directory)/syncstate.json"
        let store = LocalSyncStore(path: path)
        Application.promote(\.syncStore, with: store)

        // 1. Reads: served from the entry's cache, side by side with a State read.
        let reads = measureInterleaved(
            [
                BenchmarkCase(name: "State read", group: "syncstate") { n in
                    for _ in 0..<n { blackHole(Application.state(\.benchStateRead).value) }
                },
                BenchmarkCase(name: "SyncState read", group: "syncstate") { n in
                    for _ in 0..<n { blackHole(Application.syncState(\.benchSyncRead).value) }
                },
            ],
            rounds: quick ? 7 : 31, roundNanoseconds: quick ? 2_000_000 : 5_000_000
        )
        let stateRead = reads[0].median
        rows.append(["State read (feature/id), for comparison", format(stateRead) + " ns", "", ""])
        rows.append(["SyncState read (LocalSyncStore installed)", format(reads[1].median) + " ns", "",
                     format(reads[1].median / stateRead, decimals: 2) + "× State read"])

        // 2. `try await SyncState.write(_:)` until the store acknowledged it, alternating with a
        //    raw `store.write` of another key on the same store, so both see the same disk.
        let writes = quick ? 40 : 300
        let (latencies, raw) = blocking {
            var samples: ([Double], [Double]) = ([], [])
            for index in 1...writes {
                var start = monotonicNanoseconds()
                try await Application.syncState(\.benchSyncLatency).write(index)
                samples.0.append(Double(monotonicNanoseconds() - start))
                start = monotonicNanoseconds()
                _ = try await store.write(Data("\(index)".utf8), forKey: "Bench/raw")
                samples.1.append(Double(monotonicNanoseconds() - start))
            }
            return samples
        }
        for (name, samples) in [("SyncState.write, acknowledged", latencies), ("… store.write alternating with it (same store)", raw)] {
            rows.append([name, SyncStoreBenchmark.micro(SyncStoreBenchmark.percentile(samples, 50)),
                         SyncStoreBenchmark.micro(SyncStoreBenchmark.percentile(samples, 99)),
                         format(1e9 / (samples.reduce(0, +) / Double(samples.count)), decimals: 0) + " writes/s"])
        }

        // 3. Propagation: SyncState.write here → another process's `Application.values(of:)` loop.
        //    One write at a time: the next starts after the child reported the previous value.
        let child = SyncStoreBenchmark.Child(["values", path])
        _ = child.line()  // "ready": store promoted, loop running
        let rounds = quick ? 30 : 200
        var fromStart: [Double] = []
        var fromAcknowledgement: [Double] = []
        for value in 1...rounds {
            let (start, acknowledged) = blocking {
                let start = monotonicNanoseconds()
                try await Application.syncState(\.benchSyncPropagation).write(value)
                return (start, monotonicNanoseconds())
            }
            // The loop may repeat or skip values; wait for this one.
            var seen: Double?
            while seen == nil {
                let fields = child.line().split(separator: " ")
                if Int(fields[0]) == value { seen = Double(fields[1])! }
            }
            fromStart.append(seen! - Double(start))
            fromAcknowledgement.append(seen! - Double(acknowledged))
        }
        child.finish()
        rows.append(["SyncState.write start → other process's values() loop", SyncStoreBenchmark.micro(SyncStoreBenchmark.percentile(fromStart, 50)),
                     SyncStoreBenchmark.micro(SyncStoreBenchmark.percentile(fromStart, 99)), "n = \(rounds), max \(SyncStoreBenchmark.micro(fromStart.max()!))"])
        rows.append(["SyncState.write acknowledged → other process's values() loop", SyncStoreBenchmark.micro(SyncStoreBenchmark.percentile(fromAcknowledgement, 50)),
                     SyncStoreBenchmark.micro(SyncStoreBenchmark.percentile(fromAcknowledgement, 99)), ""])

        // 4. Fleet `update { $0 += 1 }` from N processes at once; the final value must be N × K.
        let perProcess = quick ? 15 : 60
        for processes in [1, 4, 8] {
            let fleetPath = "\(directory)/syncstate-fleet-\(processes).json"
            let children = (0..<processes).map { _ in SyncStoreBenchmark.Child(["update", fleetPath, "\(perProcess)"]) }
            for child in children { _ = child.line() }  // "ready"
            let start = monotonicNanoseconds()
            for child in children { child.send("go") }
            var gaveUp = 0
            for child in children {
                let reply = child.line()
                guard reply.hasPrefix("done "), let count = Int(reply.dropFirst(5)) else {
                    fatalError("SyncState fleet benchmark: a child of \(processes) failed: \(reply)")
                }
                gaveUp += count
                child.finish()
            }
            let seconds = Double(monotonicNanoseconds() - start) / 1e9
            Application.promote(\.syncStore, with: LocalSyncStore(path: fleetPath))
            let final = blocking { try await Application.syncState(\.benchSyncFleetCounter).read() }
            let expected = processes * perProcess
            guard final == expected else {
                fatalError("SyncState fleet benchmark: \(processes) processes × \(perProcess) updates left the counter at \(final), expected \(expected) — increments were lost")
            }
            rows.append(["SyncState.update, \(processes) process\(processes == 1 ? "" : "es")", "", "",
                         "\(format(Double(expected) / seconds, decimals: 0)) commits/s, final \(final) = \(processes)×\(perProcess), \(gaveUp) gave up (contention)"])
        }
        return rows
    }

    // MARK: Child side

    /// Runs the SyncState-level child commands (`values`, `update`) on a LocalSyncStore at
    /// `arguments[1]`; returns false for a command this benchmark doesn't own.
    static func runChild(_ arguments: [String]) -> Bool {
        switch arguments[0] {
        case "values":
            // Prints "<value> <monotonic ns>" for every value its values() loop receives.
            blocking {
                Application.promote(\.syncStore, with: LocalSyncStore(path: arguments[1]))
                var ready = false
                for await value in Application.values(of: \.benchSyncPropagation) {
                    if !ready {
                        ready = true
                        say("ready")
                    }
                    say("\(value) \(monotonicNanoseconds())")
                }
            }
        case "update":
            // Waits for "go", commits K increments with `update { $0 += 1 }`; prints
            // "done <updates that gave up>" or the error.
            blocking {
                Application.promote(\.syncStore, with: LocalSyncStore(path: arguments[1]))
                _ = Application.syncState(\.benchSyncFleetCounter).value
                say("ready")
                _ = readLine()
                // An update that gives up (`contention`: lost `maxAttempts` = 100 times in a
                // row) committed nothing; it is counted and the increment tried again.
                var gaveUp = 0
                do {
                    for _ in 0..<Int(arguments[2])! {
                        while true {
                            do {
                                try await Application.syncState(\.benchSyncFleetCounter).update { $0 += 1 }
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
            }
        default:
            return false
        }
        return true
    }

    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
