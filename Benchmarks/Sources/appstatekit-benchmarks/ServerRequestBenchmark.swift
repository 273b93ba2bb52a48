import AppStateKit
import Foundation
import Synchronization

/// The example server's per-request work (`GET /api/flags/:name`), with and without
/// AppStateKit, timed with the processor caches warm and after evicting them.
///
/// In the Hummingbird load test AppStateKit's share of a request costs several times what the
/// same calls cost in a tight loop: between two requests, the server's own work pushes the
/// registry, the entries and the code that reads them out of the caches. Evicting the caches
/// before each timed request shows that effect without a server.
enum ServerRequestBenchmark {
    /// A stand-in for the example's flag repository: reads a FileState.
    struct FlagsRepository: Sendable {
        func flag(named name: String) throws -> Int? {
            try Application.fileState(\.benchServerFlags).read()[name]
        }
    }

    /// The served-requests counter dependency.
    final class ServedCount: Sendable {
        let count = Atomic<Int>(0)
    }

    /// The plain-Swift counterparts: a locked counter, an atomic, a task-local and locked values.
    enum Plain {
        static let requestCount = Mutex<Int>(0)
        static let served = Atomic<Int>(0)
        static let flags = Mutex<[String: Int]>([:])
        static let defaultEnabled = Mutex<Bool>(false)
        @TaskLocal static var requestInfo = "none"
    }

    /// One request through AppStateKit: a State update, a counter dependency, a scoped override
    /// of the request's info, the repository dependency reading a FileState, a StoredState read.
    @inline(never)
    static func appStateKitRequest(_ info: String) {
        Application.update(\.benchServerRequests) { $0 += 1 }
        Application.dependency(\.benchServerServed).count.add(1, ordering: .relaxed)
        Application.withOverrides { $0.override(\.benchServerRequestInfo, with: info) } operation: {
            let flag = try? Application.dependency(\.benchServerRepository).flag(named: "alpha")
            blackHole(flag ?? (Application.storedState(\.benchServerDefault).value ? 1 : 0))
        }
    }

    /// The same request in plain Swift.
    @inline(never)
    static func plainRequest(_ info: String) {
        Plain.requestCount.withLock { $0 += 1 }
        Plain.served.add(1, ordering: .relaxed)
        Plain.$requestInfo.withValue(info) {
            let flag = Plain.flags.withLock { $0["alpha"] }
            blackHole(flag ?? (Plain.defaultEnabled.withLock { $0 } ? 1 : 0))
        }
    }

    /// Median ns per request of each case over `rounds` interleaved rounds of `requests`
    /// requests, each request timed on its own (so eviction is never timed).
    static func run(rounds: Int, requests: Int) -> [[String]] {
        var file = Application.fileState(\.benchServerFlags)
        file.value = [:]
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
        let cases: [(name: String, evicting: Bool, request: (String) -> Void)] = [
            ("AppStateKit, caches warm", false, appStateKitRequest),
            ("plain Swift, caches warm", false, plainRequest),
            ("AppStateKit, caches evicted before each request", true, appStateKitRequest),
            ("plain Swift, caches evicted before each request", true, plainRequest),
        ]
        var samples = Array(repeating: [Double](), count: cases.count)
        for _ in 0..<rounds {
            for (index, benchmark) in cases.enumerated() {
                var total: UInt64 = 0
                for _ in 0..<requests {
                    if benchmark.evicting { evict() }
                    total += nanoseconds { benchmark.request("request") }
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

extension Application {
    var benchServerRequests: State<Int> { state(initial: 0, feature: "BenchServer", id: "requests") }
    var benchServerServed: Dependency<ServerRequestBenchmark.ServedCount> { dependency(ServerRequestBenchmark.ServedCount(), feature: "BenchServer", id: "served") }
    var benchServerRequestInfo: Dependency<String> { dependency("none", feature: "BenchServer", id: "request") }
    var benchServerRepository: Dependency<ServerRequestBenchmark.FlagsRepository> {
        dependency(ServerRequestBenchmark.FlagsRepository(), feature: "BenchServer", id: "repository")
    }
    var benchServerDefault: StoredState<Bool> { storedState(initial: false, feature: "BenchServer", id: "defaultEnabled") }
    var benchServerFlags: FileState<[String: Int]> {
        fileState(initial: [:], path: PersistenceBenchmarkFiles.directory, filename: "server-flags.json")
    }
}
