// PostgresSyncStore benchmarks against a running server (.ci/postgres/start.sh sets the
// APPSTATEKIT_POSTGRES_* variables). Build with the package's PostgreSQL trait:
//
//   eval "$(../.ci/postgres/start.sh)"
//   swift run -c release --traits PostgreSQL appstatekit-postgres-benchmarks [--quick]
//
// As in production, the stores connect as the least-privileged app role
// (APPSTATEKIT_POSTGRES_APP_USER/_APP_PASSWORD: no DDL, only SELECT, INSERT, UPDATE, DELETE on the
// owner's tables) with `createsTable` off; the owner role (APPSTATEKIT_POSTGRES_OWNER) creates
// each table with the store's migration SQL before a benchmark uses it, and drops the run's
// tables at the end.
//
// 1. acknowledged write latency (write(_:forKey:) until it returns), p50/p99;
// 2. propagation: commit in this process → another process's changes() feed, p50/p99;
// 3. fleet compare-and-set increments per second with 1, 4 and 8 contending processes;
// 4.–7. the same through the public SyncState API (SyncStateBenchmark.swift).
// The program re-runs itself as the other processes (first argument "--child").
import Foundation
#if PostgreSQL
import AppStateKit
import AppStateKitPostgres
import PostgresNIO

let environment = ProcessInfo.processInfo.environment
guard let host = environment["APPSTATEKIT_POSTGRES_HOST"], let port = environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init),
    let appUser = environment["APPSTATEKIT_POSTGRES_APP_USER"], let owner = environment["APPSTATEKIT_POSTGRES_OWNER"]
else {
    print("appstatekit-postgres-benchmarks: no server with an app and an owner role; run eval \"$(.ci/postgres/start.sh)\" first")
    exit(2)
}
/// The app role's connection: what every store uses.
let configuration = PostgresClient.Configuration(
    host: host, port: port, username: appUser, password: environment["APPSTATEKIT_POSTGRES_APP_PASSWORD"],
    database: environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .disable
)
/// The owner role's connection: creates and drops the tables.
let ownerConfiguration = PostgresClient.Configuration(
    host: host, port: port, username: owner, password: environment["APPSTATEKIT_POSTGRES_OWNER_PASSWORD"],
    database: environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .disable
)

/// A store's settings for `table`, which the owner created: no DDL.
func storeConfiguration(table: String) -> PostgresSyncStore.Configuration {
    var configuration = PostgresSyncStore.Configuration()
    configuration.table = table
    configuration.createsTable = false
    return configuration
}

/// Runs `body` on a running client of the owner role.
func asOwner(_ body: @Sendable (PostgresClient) async throws -> Void) async throws {
    let client = PostgresClient(configuration: ownerConfiguration)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        try await body(client)
    }
}

/// Creates `table` as the owner, with the store's migration SQL (as a migration tool would).
func createTable(_ table: String) async throws {
    let sql = PostgresSyncStore.migrationSQL(configuration: storeConfiguration(table: table))
    try await asOwner { client in try await client.query(PostgresQuery(unsafeSQL: sql)) }
}

/// Drops the owner's tables whose names end in `_<run>`, the ones this run created.
func dropTables(ofRun run: UInt32) async throws {
    try await asOwner { client in
        var tables: [String] = []
        let rows = try await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user AND tablename LIKE 'bench\\_%\\_' || \(String(run))")
        for try await (table) in rows.decode(String.self) { tables.append(table) }
        for table in tables { try await client.query(PostgresQuery(unsafeSQL: "DROP TABLE \"\(table)\"")) }
    }
}

/// Wall-clock nanoseconds, comparable between processes on one machine.
@Sendable func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

@Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// Runs `body` with a running client and store on `table`, connected; then stops the store
/// before the client, as a ServiceGroup would (stopping both at once made every store report
/// the lost connection).
func withStore<Result: Sendable>(table: String, _ body: @Sendable (PostgresSyncStore) async throws -> Result) async throws -> Result {
    let client = PostgresClient(configuration: configuration)
    let store = PostgresSyncStore(client: client, configuration: storeConfiguration(table: table))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        let storeRun = Task { try await store.run() }
        defer { storeRun.cancel() }
        while true {
            if case .connected = store.status { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let result = try await body(store)
        storeRun.cancel()
        try await storeRun.value
        return result
    }
}

@Sendable func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

@Sendable func milliseconds(_ nanoseconds: [Int64]) -> String {
    let sorted = nanoseconds.map { Double($0) / 1e6 }.sorted()
    return String(format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms (n = %d)", percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.last ?? 0, sorted.count)
}

/// A started copy of this program.
final class Child: @unchecked Sendable {
    // Safe: used from one task at a time.
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    var buffer = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--child"] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Every remaining line of output (blocks until the child closes it).
    func lines() -> [String] {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The next line of output (blocks until it arrives); `nil` once the child closed it.
    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let next = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return next
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Blocks until a line equal to `line` arrives.
    func waitFor(_ line: String) {
        while let next = nextLine(), next != line {}
    }

    /// Sends one line to the child's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--child" {
    let (role, table) = (arguments[1], arguments[2])
    try await withStore(table: table) { store in
        switch role {
        case "listen":
            // listen <table> <count>: prints "<received ns> <value>" per change of key "p".
            let count = Int(arguments[3])!
            let feed = store.changeFeed()
            say("READY")
            var received = 0
            // Ends at the last value: a value superseded before it was fetched is skipped.
            listening: for await change in feed {
                let records: [SyncRecord]
                switch change {
                case .changed(let record): records = [record]
                case .replaced(let all): records = all
                }
                for record in records where record.key == "p" {
                    let text = String(decoding: record.value ?? Data(), as: UTF8.self)
                    say("\(now()) \(text)")
                    received += 1
                    if received == count || Int(text) == count - 1 { break listening }
                }
            }
        case "increment":
            // increment <table> <seconds>: CAS increments of "counter" until the time is up.
            let end = ContinuousClock.now + .seconds(Int(arguments[3])!)
            var (commits, conflicts) = (0, 0)
            var current = try await store.fetchRecord(forKey: "counter")
            while ContinuousClock.now < end {
                let value = current?.value.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                switch try await store.compareAndSet(Data(String(value + 1).utf8), forKey: "counter", expectedVersion: current?.version ?? 0) {
                case .committed(let record): current = record; commits += 1
                case .conflict(let now): current = now; conflicts += 1
                }
            }
            say("\(commits) \(conflicts)")
        default:
            // The SyncState-level roles (values, update): SyncStateBenchmark.swift.
            try await SyncStateBenchmark.runChild(role: role, arguments: arguments, store: store)
        }
    }
    exit(0)
}

let quick = arguments.contains("--quick")
let run = UInt32.random(in: 0...UInt32.max)
print("PostgresSyncStore benchmarks — \(quick ? "quick" : "full") run, PostgreSQL at \(host):\(port) as the app role \(appUser) (tables by \(owner)), \(ProcessInfo.processInfo.activeProcessorCount) cores\n")

// 1. Acknowledged write latency.
let writeTable = "bench_write_\(run)"
try await createTable(writeTable)
let writes = quick ? 200 : 2000
let writeLatencies = try await withStore(table: writeTable) { store in
    var result: [Int64] = []
    for index in 0..<writes {
        let start = now()
        _ = try await store.write(Data(#"{"n":\#(index)}"#.utf8), forKey: "k\(index % 16)")
        result.append(now() - start)
    }
    return result
}
print("1. acknowledged write latency: \(milliseconds(writeLatencies))")

// 2. Propagation to another process's feed.
let propagationTable = "bench_propagate_\(run)"
try await createTable(propagationTable)
let propagations = quick ? 100 : 1000
try await withStore(table: propagationTable) { store in
    let listener = try Child(["listen", propagationTable, String(propagations)])
    listener.waitFor("READY")
    try await Task.sleep(for: .milliseconds(200))
    var acknowledged: [Int: (start: Int64, ack: Int64)] = [:]
    for index in 0..<propagations {
        let start = now()
        _ = try await store.write(Data(String(index).utf8), forKey: "p")
        acknowledged[index] = (start, now())
        // Spaced out so each commit is measured on its own rather than as a burst.
        try await Task.sleep(for: .milliseconds(5))
    }
    var fromAck: [Int64] = []
    var fromStart: [Int64] = []
    for line in listener.lines() {
        let fields = line.split(separator: " ")
        guard fields.count == 2, let received = Int64(fields[0]), let index = Int(fields[1]), let sent = acknowledged[index] else { continue }
        fromAck.append(received - sent.ack)
        fromStart.append(received - sent.start)
    }
    print("2. propagation, commit acknowledged → other process's feed: \(milliseconds(fromAck))")
    print("   propagation, write started → other process's feed: \(milliseconds(fromStart))")
    print("   delivered \(fromAck.count) of \(propagations) writes (the feed skips a value superseded before it was fetched)")
}

// 3. Fleet compare-and-set throughput.
let seconds = quick ? 1 : 5
for processes in [1, 4, 8] {
    let table = "bench_cas_\(processes)_\(run)"
    try await createTable(table)
    try await withStore(table: table) { store in
        _ = try await store.write(Data("0".utf8), forKey: "counter")
        let children = try (0..<processes).map { _ in try Child(["increment", table, String(seconds)]) }
        var (commits, conflicts) = (0, 0)
        for child in children {
            let fields = (child.lines().last ?? "").split(separator: " ").compactMap { Int($0) }
            if fields.count == 2 { commits += fields[0]; conflicts += fields[1] }
        }
        let final = try await store.fetchRecord(forKey: "counter")
        let value = final?.value.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? -1
        print(String(format: "3. fleet update, %d process%@: %.0f committed increments/s (%d conflicts retried; counter %d = commits %d: %@)",
                     processes, processes == 1 ? "" : "es", Double(commits) / Double(seconds), conflicts, value, commits, value == commits ? "ok" : "MISMATCH"))
    }
}

try await SyncStateBenchmark.run(quick: quick, run: run)
try await dropTables(ofRun: run)
#else
print("appstatekit-postgres-benchmarks: built without the PostgreSQL trait; run `swift run -c release --traits PostgreSQL appstatekit-postgres-benchmarks`")
#endif
