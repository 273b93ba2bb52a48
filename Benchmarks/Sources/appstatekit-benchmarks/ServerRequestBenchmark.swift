import AppStateKit
import Foundation
import ServerRequestWork

/// The example server's per-request work (``ServerRequestWork``), with and without AppStateKit,
/// timed with the processor caches warm and after evicting them.
///
/// In the Hummingbird load test AppStateKit's share of a request costs several times what the
/// same calls cost in a tight loop: between two requests, the server's own work pushes the
/// registry, the entries and the code that reads them out of the caches. Evicting the caches
/// before each timed request shows that effect without a server.
enum ServerRequestBenchmark {
    /// Median ns per request of each case over `rounds` interleaved rounds of `requests`
    /// requests, each request timed on its own (so eviction is never timed). The FileState the
    /// requests read lives in `directory`.
    static func run(directory: String, rounds: Int, requests: Int) -> [[String]] {
        ServerRequestWork.directory = directory
        // As the server's data directory, it exists: a FileState read never creates its
        // directory, and while it is missing every read checks the file with a `stat`.
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The StoredState the request reads is in `\.userDefaults`: a store in the run's
        // directory (as section 6b's), never the default one in the user's home.
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: directory + "/defaults-store.json"))
        var evictionBuffer = [UInt8](repeating: 1, count: 16 << 20)
        var checksum = 0
        func evict() {
            evictionBuffer.withUnsafeMutableBufferPointer { buffer in
                for index in stride(from: 0, to: buffer.count, by: 64) {
                    buffer[index] &+= 1
                    checksum &+= Int(buffer[index])
                }
            }
        }
        let cases: [(name: String, evicting: Bool, request: (String) -> Int)] = [
            ("AppStateKit, caches warm", false, ServerRequestWork.appStateKit),
            ("plain Swift, caches warm", false, ServerRequestWork.plainSwift),
            ("AppStateKit, caches evicted before each request", true, ServerRequestWork.appStateKit),
            ("plain Swift, caches evicted before each request", true, ServerRequestWork.plainSwift),
        ]
        var samples = Array(repeating: [Double](), count: cases.count)
        for _ in 0..<rounds {
            for (index, benchmark) in cases.enumerated() {
                var total: UInt64 = 0
                for _ in 0..<requests {
                    if benchmark.evicting { evict() }
                    total += nanoseconds { blackHole(benchmark.request("request")) }
                }
                samples[index].append(Double(total) / Double(requests))
            }
        }
        blackHole(checksum)
        let medians = samples.map(median)
        return cases.indices.map { index in
            let plain = medians[index | 1]
            return [cases[index].name, format(medians[index]), format(medians[index] / plain, decimals: 2) + "×"]
        }
    }
}
