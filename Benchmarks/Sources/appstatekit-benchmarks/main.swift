import AppStateKit
import Foundation

// Usage: appstatekit-benchmarks [--quick] [filter]   (filter: a case name, scaling, core, creation, pers[istence], reads, writers, server, async, sync)
if CommandLine.arguments.dropFirst().first == "--sync-child" { SyncStoreBenchmark.runChild(Array(CommandLine.arguments.dropFirst(2))) }
let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
let filter = arguments.first { !$0.hasPrefix("--") }
let rounds = quick ? 7 : 31
let roundNanoseconds: UInt64 = quick ? 2_000_000 : 5_000_000

func selected(_ cases: [BenchmarkCase]) -> [BenchmarkCase] {
    // "scaling": section 2 alone, every case of it; "core": sections 1-4, every case.
    if filter == "scaling" { return cases.contains { $0.name.hasSuffix(" ×2 threads") } ? cases : [] }
    if filter == "core" { return cases }
    guard let filter else { return cases }
    return cases.filter { $0.name.localizedCaseInsensitiveContains(filter) || $0.name.hasPrefix("floor") }
}

print("AppStateKit benchmarks — \(quick ? "quick" : "full") run, \(rounds) interleaved rounds, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("Figures are ns/op; ratios compare medians measured side by side in this run.\n")

let sections: [(String, [BenchmarkCase])] = [
    ("1. Resolve a cached dependency", FloorCases.resolve() + AppStateKitCases.resolve() + PeerCases.resolve()),
    (
        "2. The same on 2 threads at once (aggregate time per op)",
        FloorCases.scalingControls() + AppStateKitCases.resolveOnOneThread() + AppStateKitCases.resolveOnTwoThreads()
            + AppStateKitCases.stateReadScaling() + PeerCases.resolveOnTwoThreads()
    ),
    ("3. State read, write, update", FloorCases.resolve() + FloorCases.state() + AppStateKitCases.state()),
    ("3b. SyncState read (local cache) vs State read", FloorCases.resolve() + AppStateKitCases.state().prefix(1) + SyncStateCases.read()),
    ("4. Scoped override + one read", FloorCases.resolve() + AppStateKitCases.scopedOverride() + PeerCases.scopedOverride()),
]

for (title, cases) in sections {
    let chosen = selected(cases)
    guard chosen.count > 1 else { continue }
    let results = measureInterleaved(chosen, rounds: rounds, roundNanoseconds: roundNanoseconds)
    let floor = results.first { $0.name.hasPrefix("floor") }!.median
    let peers = results.filter { $0.name.hasPrefix("Swinject") || $0.name.hasPrefix("swift-dependencies") }
    let fastestPeer = peers.map(\.median).min()
    let rows = results.map { result -> [String] in
        [
            result.name, format(result.median), format(result.minimum), format(result.median / floor, decimals: 2) + "×",
            fastestPeer.map { format($0 / result.median, decimals: 1) + "×" } ?? "",
        ]
    }
    print("## \(title)\n")
    print(table(["case", "median ns", "min ns", "vs floor", "fastest peer ÷ this"], rows))
    // Scaling: each "… ×2 threads" case against the same case on one thread, measured alongside.
    for result in results where result.name.hasSuffix(" ×2 threads") {
        let single = String(result.name.dropLast(" ×2 threads".count))
        if let one = results.first(where: { $0.name == single }) {
            print("\(single): 2 threads ÷ 1 thread = \(format(result.median / one.median, decimals: 2))× (below 1× is a gain)")
        }
    }
    print()
}

if filter == nil || filter == "creation" {
    print("## 5. First access: creating N entries\n")
    let counts = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]
    let rows = CreationBenchmark.run(counts: counts, rounds: quick ? 3 : 9)
    print(table(["N", "ns per entry (median)", "vs 1k", "bytes per entry"], rows))
    print()
}

if filter == nil || filter.map({ "persistence".hasPrefix($0) && $0.count >= 4 }) == true {
    print("## 6. Persistence (this machine's disk)\n")
    print(table(["case", "ops/s", "µs/op"], PersistenceBenchmark.run(quick: quick)))
    print()
    let directory = NSTemporaryDirectory() + "appstatekit-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    print("## 6b. Persisted reads vs a State read (unchanged value, interleaved)\n")
    print(table(["case", "median ns", "vs State read", "min ns", "min vs State read min"], PersistenceScalingBenchmark.readRatios(directory: directory, rounds: rounds, roundNanoseconds: roundNanoseconds)))
    print()
    print("## 6b'. Reads on one thread and on two at once (aggregate ns/read, interleaved)\n")
    print(table(["case", "median ns", "throughput vs 1 thread"], PersistenceScalingBenchmark.readScaling(rounds: rounds, roundNanoseconds: roundNanoseconds)))
    print()
    print("## 6c. Concurrent durable writers (writes/s, median of alternated rounds)\n")
    print(table(["case", "writes/s", "vs 1 writer"], PersistenceScalingBenchmark.writerScaling(directory: directory, quick: quick)))
    print()
    print("## 6d. A small durable write vs the size of the rest of the store\n")
    print(table(["case", "µs/write (median; first: one write)", "vs empty"], PersistenceScalingBenchmark.largeStore(directory: directory, quick: quick)))
    print()
    printServerRequestSection(directory: directory)
    printAsyncWriterSection(directory: directory)
}

if filter == "reads" {
    let directory = NSTemporaryDirectory() + "appstatekit-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    print("## 6b. Persisted reads vs a State read (unchanged value, interleaved)\n")
    print(table(["case", "median ns", "vs State read", "min ns", "min vs State read min"], PersistenceScalingBenchmark.readRatios(directory: directory, rounds: rounds, roundNanoseconds: roundNanoseconds)))
    print()
}

if filter == "writers" {
    let directory = NSTemporaryDirectory() + "appstatekit-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    print("## 6c. Concurrent durable writers (writes/s, median of alternated rounds)\n")
    print(table(["case", "writes/s", "vs 1 writer"], PersistenceScalingBenchmark.writerScaling(directory: directory, quick: quick)))
    print()
}

if filter == "async" {
    let directory = NSTemporaryDirectory() + "appstatekit-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    printAsyncWriterSection(directory: directory)
}

/// Section 6f, also run on its own with the filter `async`.
func printAsyncWriterSection(directory: String) {
    print("## 6f. Durable writes from writer tasks on Swift's pool (writes/s, median of alternated rounds)\n")
    print(table(["case", "writes/s", "vs 1 task, same call", "vs 1 task, write(_:)"], AsyncWriterBenchmark.run(directory: directory + "/tasks", quick: quick)))
    print()
}

if filter == "server" {
    let directory = NSTemporaryDirectory() + "appstatekit-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    printServerRequestSection(directory: directory)
}

/// Section 6e, also run on its own with the filter `server`.
func printServerRequestSection(directory: String) {
    print("## 6e. The example server's per-request work, caches warm and evicted (ns/request)\n")
    print(table(["case", "median ns", "vs plain Swift"], ServerRequestBenchmark.run(directory: directory, rounds: quick ? 3 : 9, requests: quick ? 300 : 1_000)))
    print()
}

if filter == nil || filter == "sync" {
    print("## 7. Embedded sync store (LocalSyncStore, this machine's disk)\n")
    print(table(["case", "p50", "p99", "throughput"], SyncStoreBenchmark.run(quick: quick)))
    print()
}
