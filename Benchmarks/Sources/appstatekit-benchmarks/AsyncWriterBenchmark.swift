import AppStateKit
import Dispatch
import Foundation

/// Issue 32's ratio: durable StoredState writes from 8 writer *tasks* on Swift's cooperative
/// pool against one, with the blocking `write(_:)` (each write holds a pool thread, of which
/// there is one per core) and with `writeDurably(_:)` (each write suspends its task while a
/// thread of AppStateKit's own blocks). Rounds alternate the four cases; writes/s are medians.
///
/// Each task rewrites its own key of one `FileKeyValueStore` (a store per case and round,
/// holding the same 8 keys either way), as section 6c's threads do.
enum AsyncWriterBenchmark {
    static func run(directory: String, quick: Bool) -> [[String]] {
        let perTask = quick ? 15 : 40
        let rounds = quick ? 3 : 5
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let cases: [(name: String, tasks: Int, isAsync: Bool)] = [
            ("1 writer task, write(_:)", 1, false),
            ("8 writer tasks, write(_:)", 8, false),
            ("1 writer task, writeDurably(_:)", 1, true),
            ("8 writer tasks, writeDurably(_:)", 8, true),
        ]
        var rates = [[Double]](repeating: [], count: cases.count)
        for round in 0..<rounds {
            for (index, testCase) in cases.enumerated() {
                let store = FileKeyValueStore(path: "\(directory)/tasks-\(round)-\(index).json")
                // The first write creates the file, and the 8 keys are there either way: not measured.
                for task in 0..<8 { store.set(0, forKey: "Bench/task\(task)") }
                let application = Application()
                let handles = (0..<testCase.tasks).map {
                    application.storedState(initial: 0, feature: "Bench", id: "task\($0)", store: store)
                }
                let time = nanoseconds {
                    waitFor {
                        await withThrowingTaskGroup(of: Void.self) { group in
                            for handle in handles {
                                group.addTask {
                                    for value in 1...perTask {
                                        if testCase.isAsync { try await handle.writeDurably(value) } else { try handle.write(value) }
                                    }
                                }
                            }
                            while let result = await group.nextResult() {
                                if case let .failure(error) = result { fatalError("a benchmark write failed: \(error)") }
                            }
                        }
                    }
                }
                rates[index].append(Double(testCase.tasks * perTask) / (Double(time) / 1e9))
            }
        }
        let medians = rates.map(median)
        let oneBlocking = medians[0], oneAsync = medians[2]
        return cases.indices.map { index in
            [
                cases[index].name, format(medians[index], decimals: 0),
                format(medians[index] / (cases[index].isAsync ? oneAsync : oneBlocking), decimals: 2) + "×",
                format(medians[index] / oneBlocking, decimals: 2) + "×",
            ]
        }
    }

    /// Runs `body` in a task and blocks the calling (non-pool) thread until it finished.
    private static func waitFor(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }
}
