import AppStateKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The embedded sync store (LocalSyncStore) on this machine's disk: acknowledged write latency,
/// propagation from a commit in this process to another process's change feed, and
/// compare-and-set throughput with 1, 4 and 8 contending processes; then the same through
/// SyncState (``SyncStateFleetBenchmark``).
///
/// The other processes are this executable again (`--sync-child …`), so `swift run` builds
/// everything the benchmark needs. Times are `CLOCK_MONOTONIC`, which all processes share.
enum SyncStoreBenchmark {
    static func run(quick: Bool) -> [[String]] {
        let directory = NSTemporaryDirectory() + "appstatekit-sync-bench-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var rows: [[String]] = []

        // 1. Acknowledged writes (two fsyncs each), no feed open.
        let writes = quick ? 40 : 300
        let store = LocalSyncStore(path: "\(directory)/write.json")
        let latencies = blocking {
            var samples: [Double] = []
            for index in 0..<writes {
                let start = monotonicNanoseconds()
                _ = try await store.write(Data("\(index)".utf8), forKey: "Bench/write")
                samples.append(Double(monotonicNanoseconds() - start))
            }
            return samples
        }
        rows.append(["write, acknowledged (durable)", micro(percentile(latencies, 50)), micro(percentile(latencies, 99)),
                     format(1e9 / (latencies.reduce(0, +) / Double(latencies.count)), decimals: 0) + " writes/s"])

        // 2. Propagation to a child process's feed (inotify). One write at a time: the next starts
        //    after the child reported the previous one.
        let propagationPath = "\(directory)/propagation.json"
        let child = Child(["watch", propagationPath])
        _ = child.line()  // "ready"
        let propagationStore = LocalSyncStore(path: propagationPath)
        let rounds = quick ? 30 : 200
        var fromStart: [Double] = []
        var fromAcknowledgement: [Double] = []
        for index in 0..<rounds {
            let (start, acknowledged) = blocking {
                let start = monotonicNanoseconds()
                _ = try await propagationStore.write(Data("\(index)".utf8), forKey: "Bench/propagation")
                return (start, monotonicNanoseconds())
            }
            let seen = Double(child.line().split(separator: " ")[1])!
            fromStart.append(seen - Double(start))
            fromAcknowledgement.append(seen - Double(acknowledged))
        }
        child.finish()
        rows.append(["write start → other process's feed", micro(percentile(fromStart, 50)), micro(percentile(fromStart, 99)), ""])
        rows.append(["acknowledged → other process's feed", micro(percentile(fromAcknowledgement, 50)), micro(percentile(fromAcknowledgement, 99)),
                     "(negative: seen before the directory fsync returned)"])

        // 3. Contended compare-and-set increments of one key.
        let perProcess = quick ? 15 : 60
        for processes in [1, 4, 8] {
            let path = "\(directory)/cas-\(processes).json"
            let children = (0..<processes).map { _ in Child(["increment", path, "Bench/counter", "\(perProcess)"]) }
            for child in children { _ = child.line() }  // "ready": started and store opened
            let start = monotonicNanoseconds()
            for child in children { child.send("go") }
            var conflicts = 0
            for child in children {
                conflicts += Int(child.line().split(separator: " ")[1])!
                child.finish()
            }
            let seconds = Double(monotonicNanoseconds() - start) / 1e9
            let commits = processes * perProcess
            rows.append(["compareAndSet update, \(processes) process\(processes == 1 ? "" : "es")", "", "",
                         "\(format(Double(commits) / seconds, decimals: 0)) commits/s, \(conflicts) conflicts retried"])
        }

        // 4. What an idle watcher costs: this process's CPU time while one feed is open and
        //    nothing is written.
        let idleSeconds: UInt32 = quick ? 1 : 5
        let baseline = cpuNanoseconds()
        sleep(idleSeconds)
        rows.append(["idle, no feed (baseline)", "", "", "\(micro(Double(cpuNanoseconds() - baseline) / Double(idleSeconds))) CPU per second"])
        for detection in [LocalSyncStore.ChangeDetection.automatic, .polling(every: LocalSyncStore.ChangeDetection.fallbackInterval)] {
            let idle = LocalSyncStore(path: "\(directory)/idle.json", changeDetection: detection)
            let feed = idle.changeFeed()
            let before = cpuNanoseconds()
            sleep(idleSeconds)
            let used = Double(cpuNanoseconds() - before) / Double(idleSeconds)
            withExtendedLifetime(feed) {}
            rows.append(["idle feed open, \(detection)", "", "", "\(micro(used)) CPU per second"])
        }

        // 5. The same through the public SyncState API (last: it leaves stores promoted).
        rows += SyncStateFleetBenchmark.run(directory: directory, quick: quick)
        return rows
    }

    /// User and system CPU time of this process so far.
    static func cpuNanoseconds() -> UInt64 {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func nanoseconds(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
        return nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime)
    }

    // MARK: Child side

    /// Runs `--sync-child <command> …` and exits.
    static func runChild(_ arguments: [String]) -> Never {
        if SyncStateFleetBenchmark.runChild(arguments) { exit(0) }
        blocking {
            let store = LocalSyncStore(path: arguments[1])
            switch arguments[0] {
            case "watch":
                // Prints "<version> <monotonic ns>" for every record its feed delivers. The first
                // write creates the file, which the feed reports as a replacement carrying it.
                let feed = store.changeFeed()
                say("ready")
                for await change in feed {
                    let records: [SyncRecord]
                    switch change {
                    case .changed(let record): records = [record]
                    case .replaced(let all): records = all
                    }
                    for record in records {
                        say("\(record.version) \(monotonicNanoseconds())")
                    }
                }
            case "increment":
                // Waits for "go", adds 1 to the key `count` times by compare-and-set, prints
                // "done <conflicts>".
                let key = arguments[2]
                _ = try store.cachedRecord(forKey: key)
                say("ready")
                _ = readLine()
                var conflicts = 0
                for _ in 0..<Int(arguments[3])! {
                    var current = try await store.fetchRecord(forKey: key)
                    while true {
                        let next = (current?.value.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0) + 1
                        guard case let .conflict(now) = try await store.compareAndSet(Data("\(next)".utf8), forKey: key, expectedVersion: current?.version ?? 0) else { break }
                        conflicts += 1
                        current = now
                    }
                }
                say("done \(conflicts)")
            default:
                fatalError("unknown sync child command \(arguments[0])")
            }
        }
        exit(0)
    }

    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    // MARK: Helpers

    /// A child process (this executable with `--sync-child`), talked to line by line.
    final class Child {
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private var buffered = Data()

        init(_ arguments: [String]) {
            process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["--sync-child"] + arguments
            process.standardInput = input
            process.standardOutput = output
            do {
                try process.run()
            } catch {
                fatalError("cannot start the sync benchmark child: \(error)")
            }
        }

        /// The next line the child prints (waits at most 60 s).
        func line() -> String {
            let deadline = monotonicNanoseconds() + 60_000_000_000
            while true {
                if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffered[..<end], as: UTF8.self)
                    buffered.removeSubrange(...end)
                    return line
                }
                precondition(monotonicNanoseconds() < deadline, "the sync benchmark child said nothing for 60 s")
                var descriptor = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let chunk = output.fileHandleForReading.availableData
                precondition(!chunk.isEmpty, "the sync benchmark child exited early")
                buffered.append(chunk)
            }
        }

        func send(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        /// Stops the child if it is still running and reaps it.
        func finish() {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            process.waitUntilExit()
        }
    }

    static func percentile(_ samples: [Double], _ percent: Int) -> Double {
        let sorted = samples.sorted()
        let rank = Int((Double(percent) / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    static func micro(_ nanoseconds: Double) -> String {
        format(nanoseconds / 1_000, decimals: 0) + " µs"
    }
}

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Runs `body` on the concurrency pool and waits for it (the benchmark's top level is
/// synchronous).
func blocking<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) -> Result {
    let box = ResultBox<Result>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            box.result = .success(try await body())
        } catch {
            box.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    switch box.result! {
    case let .success(value): return value
    case let .failure(error): fatalError("sync benchmark failed: \(error)")
    }
}

private final class ResultBox<Value: Sendable>: @unchecked Sendable {
    // Safe: written once by the task before `done.signal()`, read after `done.wait()`.
    var result: Swift.Result<Value, any Error>?
}
