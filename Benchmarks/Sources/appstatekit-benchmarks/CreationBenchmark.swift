import AppStateKit
import Foundation

/// First access: the cost of creating N entries in a fresh application, per entry, and the
/// memory each one takes (resident-set growth).
enum CreationBenchmark {
    static func run(counts: [Int]) -> [[String]] {
        var rows: [[String]] = []
        for count in counts {
            let ids = (0..<count).map { "entry-\($0)" }
            let application = Application()
            let residentBefore = residentBytes()
            let elapsed = nanoseconds {
                for id in ids {
                    blackHole(application.state(initial: 0, feature: "Creation", id: id).value)
                }
            }
            let residentAfter = residentBytes()
            let perEntry = Double(elapsed) / Double(count)
            let bytes = Double(max(0, residentAfter - residentBefore)) / Double(count)
            rows.append(["\(count)", format(perEntry), format(bytes, decimals: 0)])
            withExtendedLifetime(application) {}
        }
        return rows
    }

    /// The process's resident set size from /proc/self/statm (Linux), or 0.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
