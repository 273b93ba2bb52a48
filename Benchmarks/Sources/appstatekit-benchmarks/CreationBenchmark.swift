import AppStateKit
import Foundation

/// First access: the cost of creating N entries in a fresh application, per entry, and the
/// memory each one takes.
///
/// Every round creates a fresh application for each N, interleaved (1k, 10k, 100k, 1k, …) so
/// drift hits every size alike; the table shows the median over rounds. Memory is the growth of
/// the resident set while creating, per entry, in the first round (later rounds reuse memory the
/// earlier applications freed).
enum CreationBenchmark {
    static func run(counts: [Int], rounds: Int) -> [[String]] {
        let ids = counts.map { count in (0..<count).map { "entry-\($0)" } }
        var nanosecondsPerEntry = Array(repeating: [Double](), count: counts.count)
        var bytesPerEntry = Array(repeating: 0.0, count: counts.count)
        for round in 0..<rounds {
            for (index, names) in ids.enumerated() {
                let (elapsed, grown) = createEntries(names)
                nanosecondsPerEntry[index].append(Double(elapsed) / Double(names.count))
                if round == 0 {
                    bytesPerEntry[index] = Double(max(0, grown)) / Double(names.count)
                }
                settleAfterTeardown()
            }
        }
        let medians = nanosecondsPerEntry.map(median)
        return counts.indices.map { index in
            [
                "\(counts[index])", format(medians[index]), format(medians[index] / medians[0], decimals: 2) + "×",
                format(bytesPerEntry[index], decimals: 0),
            ]
        }
    }

    /// Creates one state per name in a fresh application; returns the time taken and the growth
    /// of the resident set. The application is released on return, outside the timed region.
    static func createEntries(_ names: [String]) -> (nanoseconds: UInt64, residentGrowth: Int) {
        let application = Application()
        let residentBefore = residentBytes()
        let elapsed = nanoseconds {
            for id in names {
                blackHole(application.state(initial: 0, feature: "Creation", id: id).value)
            }
        }
        let residentAfter = residentBytes()
        withExtendedLifetime(application) {}
        return (elapsed, residentAfter - residentBefore)
    }

    /// Keeps the previous round's teardown out of the next round's timing: this thread's lookup
    /// memo keeps the released application's entries alive until it touches another
    /// application, and glibc merges the freed chunks on the next large allocation.
    static func settleAfterTeardown() {
        blackHole(Application().state(initial: 0, feature: "Creation", id: "settle").value)
        let block = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        block.deallocate()
    }

    /// The process's resident set size from /proc/self/statm (Linux), or 0.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
