// A child process for the PostgreSQL store's multi-process tests (not for users: the leading
// underscore keeps it out of sight). Connection settings come from APPSTATEKIT_POSTGRES_HOST,
// _PORT, _DATABASE; it connects as the application role (_APP_USER, _APP_PASSWORD), or as the
// owner (_OWNER) when APPSTATEKIT_CHILD_ROLE=owner. Each command prints one line per event and
// exits 0 when done.
//
//   increment <table> <key> <count>   fleet-atomic increments of a JSON integer (compare-and-set)
//   write-acks <table> <key>          writes 1, 2, 3, … and prints "ACK <n>" after each commit
//   watch <table> <key> <json>        prints "READY" once listening, "SEEN" when the feed
//                                     delivers <json> for <key>
//   state-watch <table> <key> <on>    SyncState level: prints "READY" once its values(of:) loop
//                                     runs, "SEEN" when the Fleet/flags value's "beta" is <on>
//   state-increment <table> <key> <count>  SyncState level: `update { $0 += 1 }` on Fleet/counter
//   cold-increment <table> <key> <count>   the same, started at once, before run() has loaded
//                                     anything or found the table (a cold start)
//   sigterm-drain <table> <key> <count>    runs client and store in a ServiceGroup stopped by
//                                     SIGTERM, assigns Drain/k0…k<count-1> with SyncState's
//                                     setter, prints "SET", and "STOPPED" once the group returned
import Foundation
#if PostgreSQL
import AppStateKit
import AppStateKitPostgres
import PostgresNIO
import ServiceLifecycle

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("_AppStateKitPostgresChild: " + message + "\n").utf8))
    exit(1)
}

let environment = ProcessInfo.processInfo.environment
let asOwner = environment["APPSTATEKIT_CHILD_ROLE"] == "owner"
guard let host = environment["APPSTATEKIT_POSTGRES_HOST"],
      let port = environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init),
      let user = environment[asOwner ? "APPSTATEKIT_POSTGRES_OWNER" : "APPSTATEKIT_POSTGRES_APP_USER"] else {
    fail("APPSTATEKIT_POSTGRES_HOST, _PORT and _APP_USER (or _OWNER) must be set")
}
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else { fail("usage: <increment|write-acks|watch> <table> <key> …") }
let (command, table, key) = (arguments[0], arguments[1], arguments[2])

let configuration = PostgresClient.Configuration(
    host: host, port: port, username: user, password: asOwner ? nil : environment["APPSTATEKIT_POSTGRES_APP_PASSWORD"],
    database: environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .disable
)
let client = PostgresClient(configuration: configuration)
let store = PostgresSyncStore(client: client, table: table)

/// Adds one to the integer under `key`, retrying on conflicts and on unavailability.
func increment() async throws {
    var current = try store.cachedRecord(forKey: key)
    while true {
        let value = current?.value.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
        do {
            switch try await store.compareAndSet(Data(String(value + 1).utf8), forKey: key, expectedVersion: current?.version ?? 0) {
            case .committed: return
            case .conflict(let now): current = now
            }
        } catch let error as SyncStoreError where error.kind == .unavailable {
            try await Task.sleep(for: .milliseconds(100))
            current = try? await store.fetchRecord(forKey: key)
        }
    }
}

extension Application {
    /// The keys the SIGTERM drain test assigns.
    subscript(drain index: Int) -> SyncState<Int> { syncState(initial: 0, feature: "Drain", id: "k\(index)") }

    /// Declared like `PostgresSyncStateTests`' entries (same feature and id, same table key).
    var fleetFlags: SyncState<[String: Bool]> { syncState(initial: [:], feature: "Fleet", id: "flags") }
    var fleetCounter: SyncState<Int> { syncState(initial: 0, feature: "Fleet", id: "counter") }
}

func runCommand() async throws {
    switch command {
    case "state-watch":
        let expected = arguments[3] == "true"
        while case .starting = store.currentStatus { try await Task.sleep(for: .milliseconds(10)) }
        Application.promote(\.syncStore, with: store)
        var iterator = Application.values(of: \.fleetFlags).makeAsyncIterator()
        _ = await iterator.next()
        say("READY")
        while let flags = await iterator.next() {
            if flags["beta"] == expected { say("SEEN"); return }
        }
    case "state-increment":
        while case .starting = store.currentStatus { try await Task.sleep(for: .milliseconds(10)) }
        Application.promote(\.syncStore, with: store)
        for _ in 0..<(Int(arguments[3]) ?? 0) {
            try await Application.syncState(\.fleetCounter).update { $0 += 1 }
        }
        say("DONE")
    case "cold-increment":
        Application.promote(\.syncStore, with: store)
        for _ in 0..<(Int(arguments[3]) ?? 0) {
            try await Application.syncState(\.fleetCounter).update { $0 += 1 }
        }
        say("DONE")
    case "increment":
        let count = Int(arguments[3]) ?? 0
        for _ in 0..<count { try await increment() }
        say("DONE")
    case "write-acks":
        var sequence = 1
        while true {
            do {
                let record = try await store.write(Data(String(sequence).utf8), forKey: key)
                say("ACK \(sequence) \(record.version)")
                sequence += 1
            } catch let error as SyncStoreError where error.kind == .unavailable {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    case "watch":
        let expected = Data(arguments[3].utf8)
        let feed = SyncChange.records(of: store.changeFeed())
        while case .starting = store.currentStatus { try await Task.sleep(for: .milliseconds(10)) }
        say("READY")
        if try store.cachedRecord(forKey: key)?.value == expected { say("SEEN"); return }
        for await record in feed where record.key == key && record.value == expected {
            say("SEEN")
            return
        }
    default:
        fail("unknown command \(command)")
    }
}

if command == "sigterm-drain" {
    // The documented order: the client first, so the store stops (and drains) before it.
    let services = ServiceGroup(services: [client, store], gracefulShutdownSignals: [.sigterm], logger: Logger(label: "child"))
    Application.promote(\.syncStore, with: store)
    let assign = Task {
        try await store.waitUntilReady(timeout: .seconds(30))
        for index in 0..<(Int(arguments[3]) ?? 0) {
            var state = Application.syncState(\.[drain: index])
            state.value = index + 1
        }
        say("SET")
    }
    do {
        try await services.run()
    } catch {
        fail("the service group failed: \(error)")
    }
    if case .failure(let error) = await assign.result { fail("assigning failed: \(error)") }
    say("STOPPED")
    exit(0)
}

await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { await client.run() }
    let storeRun = Task { try await store.run() }
    do {
        try await runCommand()
    } catch {
        fail("\(command) failed: \(error)")
    }
    // The store stops first, while the client still runs, as in a ServiceGroup.
    storeRun.cancel()
    _ = await storeRun.result
    group.cancelAll()
}
exit(0)
#else
FileHandle.standardError.write(Data("_AppStateKitPostgresChild: built without the PostgreSQL trait\n".utf8))
exit(2)
#endif
