import AppStateKit
import Foundation

struct Blob: Codable, Sendable {
    var bytes: Data
}

/// StoredState and FileState throughput on this machine's disk.
enum PersistenceBenchmark {
    static func run(quick: Bool) -> [[String]] {
        let directory = NSTemporaryDirectory() + "appstatekit-bench-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writes = quick ? 50 : 300
        let reads = quick ? 2_000 : 20_000
        var rows: [[String]] = []
        let application = Application()

        for (label, durability) in [("immediate (fsync)", FileKeyValueStore.Durability.immediate), ("processCrashSafe", .processCrashSafe)] {
            let store = FileKeyValueStore(path: "\(directory)/\(label.prefix(9)).json", durability: durability)
            var state = application.storedState(initial: 0, feature: "Bench", id: label, store: store)
            let writeTime = nanoseconds { for index in 0..<writes { state.value = index } }
            let readTime = nanoseconds { for _ in 0..<reads { blackHole(state.value) } }
            rows.append(["StoredState write, \(label)", perSecond(writes, writeTime), format(Double(writeTime) / Double(writes) / 1_000)])
            rows.append(["StoredState read, \(label)", perSecond(reads, readTime), format(Double(readTime) / Double(reads) / 1_000)])
        }
        for (label, size) in [("1 KB", 1_024), ("1 MB", 1_048_576)] {
            let blob = Blob(bytes: Data((0..<size).map { UInt8(truncatingIfNeeded: $0) }))
            var state = application.fileState(initial: Blob(bytes: Data()), path: directory, filename: "blob-\(size).json")
            let count = size > 100_000 ? (quick ? 3 : 20) : writes
            let writeTime = nanoseconds { for _ in 0..<count { state.value = blob } }
            let readCount = size > 100_000 ? (quick ? 3 : 20) : reads
            // Cached reads (file unchanged) cost one stat; force re-decoding by touching the file.
            let cachedTime = nanoseconds { for _ in 0..<readCount { blackHole(state.value) } }
            rows.append(["FileState write \(label)", perSecond(count, writeTime), format(Double(writeTime) / Double(count) / 1_000)])
            rows.append(["FileState read \(label) (unchanged file)", perSecond(readCount, cachedTime), format(Double(cachedTime) / Double(readCount) / 1_000)])
        }
        rows.append(contentsOf: isolatedWrites(quick: quick))
        return rows
    }

    /// One declaration written from the shared application (durable: `fsync`s) and from inside
    /// `withIsolatedApplication` (a sandbox that is deleted with the application, so no `fsync`),
    /// alternated in rounds so disk drift hits both alike.
    static func isolatedWrites(quick: Bool) -> [[String]] {
        defer { try? FileManager.default.removeItem(atPath: Application.isolatedBenchDirectory) }
        let blob = Blob(bytes: Data(repeating: 7, count: 1_024))
        let (rounds, perRound) = quick ? (3, 15) : (7, 40)
        var durable: UInt64 = 0
        var isolated: UInt64 = 0
        for _ in 0..<rounds {
            durable += nanoseconds {
                var file = Application.fileState(\.isolatedBenchBlob)
                for _ in 0..<perRound { file.value = blob }
            }
            isolated += Application.withIsolatedApplication {
                nanoseconds {
                    var file = Application.fileState(\.isolatedBenchBlob)
                    for _ in 0..<perRound { file.value = blob }
                }
            }
        }
        let count = rounds * perRound
        return [
            ["FileState write 1 KB, shared application (durable)", perSecond(count, durable), format(Double(durable) / Double(count) / 1_000)],
            ["FileState write 1 KB, isolated application (sandbox, no fsync)", perSecond(count, isolated), format(Double(isolated) / Double(count) / 1_000)],
            ["  durable ÷ isolated", format(Double(durable) / Double(isolated)) + "×", ""],
        ]
    }

    static func perSecond(_ count: Int, _ nanoseconds: UInt64) -> String {
        format(Double(count) / (Double(nanoseconds) / 1e9), decimals: 0)
    }
}

extension Application {
    /// A temporary directory of this run; inside an isolated application it maps into the sandbox.
    static let isolatedBenchDirectory = NSTemporaryDirectory() + "appstatekit-bench-isolation-\(ProcessInfo.processInfo.processIdentifier)"

    var isolatedBenchBlob: FileState<Blob> {
        fileState(initial: Blob(bytes: Data()), path: Application.isolatedBenchDirectory, filename: "blob.json")
    }
}
