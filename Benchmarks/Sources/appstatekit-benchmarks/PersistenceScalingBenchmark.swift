import AppStateKit
import Foundation

/// The store and directory of the read-ratio cases (set by `PersistenceScalingBenchmark.readRatios`).
enum PersistenceBenchmarkFiles {
    // Safe: set once before the cases run, then only read.
    nonisolated(unsafe) static var store: FileKeyValueStore!
    nonisolated(unsafe) static var directory = ""
    /// A directory fixed at first use, as a server's data directory is: a `let`, so reading it
    /// lends the string instead of copying it (a `var` is copied, retaining its storage, on
    /// every access of a declaration that names it).
    static let fixedDirectory = NSTemporaryDirectory() + "appstatekit-bench-fixed-\(UUID().uuidString)"
}

extension Application {
    var benchStored: StoredState<Int> { storedState(initial: 0, feature: "Bench", id: "stored", store: PersistenceBenchmarkFiles.store) }
    /// Through `\.userDefaults`, as most declarations are (`readRatios` promotes a store in the run's directory).
    var benchDefaultStored: StoredState<Int> { storedState(initial: 0, feature: "Bench", id: "default-stored") }
    var benchFile: FileState<Int> { fileState(initial: 0, path: PersistenceBenchmarkFiles.directory, filename: "read.json") }
    var benchFixedFile: FileState<Int> { fileState(initial: 0, path: PersistenceBenchmarkFiles.fixedDirectory, filename: "read.json") }
}

/// Issue 13's ratios, each measured side by side in one run: persisted reads against a State
/// read, concurrent durable writers against one, and a small write into a large store against
/// one into an empty store.
enum PersistenceScalingBenchmark {
    /// State, StoredState and FileState reads of an unchanged value, interleaved (ns/op).
    static func readRatios(directory: String, rounds: Int, roundNanoseconds: UInt64) -> [[String]] {
        PersistenceBenchmarkFiles.directory = directory
        PersistenceBenchmarkFiles.store = FileKeyValueStore(path: directory + "/read-store.json")
        var stored = Application.storedState(\.benchStored)
        stored.value = 1
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: directory + "/defaults-store.json"))
        var defaultStored = Application.storedState(\.benchDefaultStored)
        defaultStored.value = 1
        var file = Application.fileState(\.benchFile)
        file.value = 1
        let cases = [
            BenchmarkCase(name: "State read", group: "read") { n in
                for _ in 0..<n { blackHole(Application.state(\.benchCounter).value) }
            },
            BenchmarkCase(name: "StoredState read (FileKeyValueStore, unchanged)", group: "read") { n in
                for _ in 0..<n { blackHole(Application.storedState(\.benchStored).value) }
            },
            BenchmarkCase(name: "StoredState read (\\.userDefaults FileKeyValueStore, unchanged)", group: "read") { n in
                for _ in 0..<n { blackHole(Application.storedState(\.benchDefaultStored).value) }
            },
            BenchmarkCase(name: "FileState read (unchanged)", group: "read") { n in
                for _ in 0..<n { blackHole(Application.fileState(\.benchFile).value) }
            },
        ]
        let results = measureInterleaved(cases, rounds: rounds, roundNanoseconds: roundNanoseconds)
        let state = results[0].median, stateMinimum = results[0].minimum
        return results.map {
            [$0.name, format($0.median), format($0.median / state, decimals: 2) + "×", format($0.minimum), format($0.minimum / stateMinimum, decimals: 2) + "×"]
        }
    }

    /// Reads of one unchanged value by one thread and by two threads at once (each reading
    /// half), interleaved: the aggregate time per read, and how many times one thread's
    /// throughput two threads reach (2× when reads share no written cache line; a State read
    /// locks its entry, and a declaration naming a `var` copies its string, so their two
    /// threads do share one). Run after
    /// ``readRatios(directory:rounds:roundNanoseconds:)``, which creates the entries.
    static func readScaling(rounds: Int, roundNanoseconds: UInt64) -> [[String]] {
        var fixedFile = Application.fileState(\.benchFixedFile)
        fixedFile.value = 1
        defer { try? FileManager.default.removeItem(atPath: PersistenceBenchmarkFiles.fixedDirectory) }
        let reads: [(String, @Sendable (Int) -> Void)] = [
            ("State read", { n in for _ in 0..<n { blackHole(Application.state(\.benchCounter).value) } }),
            ("StoredState read", { n in for _ in 0..<n { blackHole(Application.storedState(\.benchDefaultStored).value) } }),
            ("FileState read, path a static let", { n in for _ in 0..<n { blackHole(Application.fileState(\.benchFixedFile).value) } }),
            ("FileState read, path a static var", { n in for _ in 0..<n { blackHole(Application.fileState(\.benchFile).value) } }),
        ]
        let cases = reads.flatMap { name, read in
            [
                // Both on threads of their own, so both pay for starting threads.
                BenchmarkCase(name: "\(name), 1 thread", group: "read-2t") { n in
                    appstatekit_benchmarks.onThreads(1, n, read)
                },
                BenchmarkCase(name: "\(name), 2 threads", group: "read-2t") { n in
                    appstatekit_benchmarks.onThreads(2, n, read)
                },
            ]
        }
        let results = measureInterleaved(cases, rounds: rounds, roundNanoseconds: roundNanoseconds)
        return stride(from: 0, to: results.count, by: 2).flatMap { index in
            let one = results[index].median, two = results[index + 1].median
            return [
                [results[index].name, format(one), "1.00×"],
                [results[index + 1].name, format(two), format(one / two, decimals: 2) + "×"],
            ]
        }
    }

    /// Writes/s of 1 and of 8 threads writing to one durable store (in each layout), and of 1
    /// and 8 threads each writing its own FileState file. Rounds alternate 1 and 8.
    ///
    /// Each thread rewrites its own key, into a store that holds the same 8 keys either way, so
    /// 8 writers' files are as large as 1 writer's and the ratio is what group commit gains.
    /// The rows "each write a new key" keep the earlier shape: 8 writers then grow the store 8
    /// times as fast, and with a single file every batch rewrites all of it (that cost is item
    /// 3's, which the log removes).
    static func writerScaling(directory: String, quick: Bool) -> [[String]] {
        let perThread = quick ? 15 : 40
        let rounds = quick ? 2 : 4
        var rows: [[String]] = []
        let layouts: [(FileKeyValueStore.Layout, String)] = [(.singleFile, "single file"), (.appendOnlyLog, "append-only log")]
        let shapes: [(newKeys: Bool, name: String)] = [(false, "own key rewritten"), (true, "each write a new key")]
        var storeRates: [[Int: [Double]]] = (0..<layouts.count * shapes.count).map { _ in [1: [], 8: []] }
        var fileRates: [Int: [Double]] = [1: [], 8: []]
        for round in 0..<rounds {
            for threads in [1, 8] {
                for (layoutIndex, (layout, _)) in layouts.enumerated() {
                    for (shapeIndex, shape) in shapes.enumerated() {
                        let index = layoutIndex * shapes.count + shapeIndex
                        let store = FileKeyValueStore(path: "\(directory)/writers-\(round)-\(threads)-\(index).json", layout: layout)
                        // The first write creates the files, and the 8 keys are there either way: not measured.
                        for thread in 0..<8 { store.set(0, forKey: "t\(thread)") }
                        let storeTime = nanoseconds {
                            onThreads(threads) { thread in
                                for index in 0..<perThread {
                                    store.set(index, forKey: shape.newKeys ? "t\(thread)-\(index)" : "t\(thread)")
                                }
                            }
                        }
                        storeRates[index][threads]!.append(Double(threads * perThread) / (Double(storeTime) / 1e9))
                    }
                }
                let fileTime = nanoseconds {
                    onThreads(threads) { thread in
                        var file = Application().fileState(initial: 0, path: directory, filename: "writer-\(round)-\(threads)-\(thread).json")
                        for index in 0..<perThread { file.value = index }
                    }
                }
                fileRates[threads]!.append(Double(threads * perThread) / (Double(fileTime) / 1e9))
            }
        }
        for (layoutIndex, (_, name)) in layouts.enumerated() {
            for (shapeIndex, shape) in shapes.enumerated() {
                let rates = storeRates[layoutIndex * shapes.count + shapeIndex]
                let one = median(rates[1]!), eight = median(rates[8]!)
                rows.append(["StoredState store (\(name), \(shape.name)), 1 writer (durable)", format(one, decimals: 0), ""])
                rows.append(["StoredState store (\(name), \(shape.name)), 8 concurrent writers (durable)", format(eight, decimals: 0), format(eight / one, decimals: 2) + "×"])
            }
        }
        let file1 = median(fileRates[1]!), file8 = median(fileRates[8]!)
        rows.append(["FileState, 1 writer, 1 file", format(file1, decimals: 0), ""])
        rows.append(["FileState, 8 writers to 8 files", format(file8, decimals: 0), format(file8 / file1, decimals: 2) + "×"])
        return rows
    }

    /// µs per small durable write into an empty store and into one holding 10 MB of other keys,
    /// in each layout. The first write into each store (which creates it, or, with the log,
    /// creates the log and rewrites the large store's file once, as an earlier version wrote it)
    /// is shown on its own row and left out of the medians.
    static func largeStore(directory: String, quick: Bool) -> [[String]] {
        let writes = quick ? 5 : 15
        // 10,000 keys of 1 KB, in the store's format (tagged JSON values, no log: as an earlier
        // version left it).
        let filler = String(repeating: "x", count: 1_000)
        let entries = (0..<10_000).map { "\"filler-\($0)\": {\"string\": \"\(filler)\"}" }
        let contents = Data("{\(entries.joined(separator: ",\n"))}".utf8)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var rows: [[String]] = []
        for (layout, name) in [(FileKeyValueStore.Layout.singleFile, "single file"), (.appendOnlyLog, "append-only log")] {
            let tag = layout == .singleFile ? "single" : "log"
            let empty = FileKeyValueStore(path: directory + "/empty-\(tag).json", layout: layout)
            _ = FileManager.default.createFile(atPath: directory + "/large-\(tag).json", contents: contents)
            let large = FileKeyValueStore(path: directory + "/large-\(tag).json", layout: layout)
            blackHole(large.object(forKey: "filler-0"))
            let emptyFirst = Double(nanoseconds { empty.set(-1, forKey: "small") }) / 1_000
            let largeFirst = Double(nanoseconds { large.set(-1, forKey: "small") }) / 1_000
            var emptyTimes: [Double] = []
            var largeTimes: [Double] = []
            for index in 0..<writes {
                emptyTimes.append(Double(nanoseconds { empty.set(index, forKey: "small") }) / 1_000)
                largeTimes.append(Double(nanoseconds { large.set(index, forKey: "small") }) / 1_000)
            }
            let emptyMedian = median(emptyTimes), largeMedian = median(largeTimes)
            rows += [
                ["\(name): first write, empty store", format(emptyFirst, decimals: 0), ""],
                ["\(name): first write, 10 MB store an earlier version wrote", format(largeFirst, decimals: 0), format(largeFirst / emptyFirst, decimals: 2) + "×"],
                ["\(name): one small write, empty store", format(emptyMedian, decimals: 0), ""],
                ["\(name): one small write, store with 10 MB of other keys", format(largeMedian, decimals: 0), format(largeMedian / emptyMedian, decimals: 2) + "×"],
            ]
        }
        return rows
    }

    /// Runs `body(0..<count)` on `count` threads of its own at once (`concurrentPerform` would use
    /// only as many threads as there are cores) and waits for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                body(index)
                group.leave()
            }
        }
        group.wait()
    }
}
