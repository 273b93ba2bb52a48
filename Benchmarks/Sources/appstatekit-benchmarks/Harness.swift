import Foundation

/// Keeps the optimiser from deleting the work being measured.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Returns `value` through a call the optimiser can't see into, so a key path stored in it is
/// read at run time as in an app, not folded into the benchmark loop.
@inline(never)
func opaque<T>(_ value: T) -> T {
    value
}

/// One benchmark case: `run(n)` performs `n` operations.
struct BenchmarkCase {
    let name: String
    let group: String
    let run: (Int) -> Void
}

/// The measured figures of one case.
struct Measurement {
    let name: String
    let group: String
    let samples: [Double]  // ns/op, one per round

    var median: Double { appstatekit_benchmarks.median(samples) }

    var minimum: Double { samples.min() ?? .nan }
}

/// The median of `samples`.
func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func nanoseconds(_ body: () -> Void) -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return DispatchTime.now().uptimeNanoseconds - start
}

/// Measures `cases` interleaved in one process — round after round, every case once per round
/// (A B C A B C …) — so machine drift and noise from other processes hit all cases alike.
///
/// Each case first runs a warm-up, then is calibrated so one round takes about `roundNanoseconds`.
func measureInterleaved(_ cases: [BenchmarkCase], rounds: Int, roundNanoseconds: UInt64) -> [Measurement] {
    var iterations: [Int] = []
    for benchmark in cases {
        benchmark.run(1_000)  // warm-up: first-access creation, caches, page faults
        var count = 1_000
        while nanoseconds({ benchmark.run(count) }) < roundNanoseconds, count < 1 << 30 {
            count *= 2
        }
        iterations.append(count)
    }
    var samples = Array(repeating: [Double](), count: cases.count)
    for _ in 0..<rounds {
        for (index, benchmark) in cases.enumerated() {
            let elapsed = nanoseconds { benchmark.run(iterations[index]) }
            samples[index].append(Double(elapsed) / Double(iterations[index]))
        }
    }
    return zip(cases, samples).map { Measurement(name: $0.name, group: $0.group, samples: $1) }
}

/// Runs `operation(n)` split across `threads` threads started together; `n` is the total count.
func onThreads(_ threads: Int, _ n: Int, _ operation: @escaping @Sendable (Int) -> Void) {
    onThreads(threads, n) { count, _ in operation(count) }
}

/// Like `onThreads(_:_:_:)`, telling each thread its number (0 ..< threads).
func onThreads(_ threads: Int, _ n: Int, _ operation: @escaping @Sendable (_ count: Int, _ thread: Int) -> Void) {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<threads {
        group.enter()
        let thread = Thread {
            start.wait()
            operation(n / threads, index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<threads { start.signal() }
    group.wait()
}

/// Formats figures as a fixed-width table.
func table(_ header: [String], _ rows: [[String]]) -> String {
    let widths = header.indices.map { column in
        ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
    }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            index == 0 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                : String(repeating: " ", count: widths[index] - cell.count) + cell
        }.joined(separator: "  ")
    }
    return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
}

func format(_ value: Double, decimals: Int = 1) -> String {
    String(format: "%.\(decimals)f", value)
}
