// A child process for the PostgreSQL store's multi-process tests (not for users: the leading
// underscore keeps it out of sight). Connection settings come from APPSTATEKIT_POSTGRES_HOST,
// _PORT, _USER, _DATABASE. Each command prints one line per event and exits 0 when done.
//
//   increment <table> <key> <count>   fleet-atomic increments of a JSON integer (compare-and-set)
//   write-acks <table> <key>          writes 1, 2, 3, … and prints "ACK <n>" after each commit
//   watch <table> <key> <json>        prints "READY" once listening, "SEEN" when the feed
//                                     delivers <json> for <key>
//   state-watch <table> <key> <on>    SyncState level: prints "READY" once its values(of:) loop
//                                     runs, "SEEN" when the Fleet/flags value's "beta" is <on>
//   state-increment <table> <key> <count>  SyncState level: `update { $0 += 1 }` on Fleet/counter
import Foundation
#if PostgreSQL
import AppStateKit
import AppStateKitPostgres
import PostgresNIO

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("_AppStateKitPostgresChild: " + message + "\n").utf8))
    exit(1)
}

let environment = ProcessInfo.processInfo.environment
guard let host = environment["APPSTATEKIT_POSTGRES_HOST"],
      let port = environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init),
      let user = environment["APPSTATEKIT_POSTGRES_USER"] else {
    fail("APPSTATEKIT_POSTGRES_HOST, _PORT and _USER must be set")
}
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else { fail("usage: <increment|write-acks|watch> <table> <key> …") }
let (command, table, key) = (arguments[0], arguments[1], arguments[2])

let configuration = PostgresClient.Configuration(
    host: host, port: port, username: user, password: nil,
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
    /// Declared like `PostgresSyncStateTests`' entries (same feature and id, same table key).
    var fleetFlags: SyncState<[String: Bool]> { syncState(initial: [:], feature: "Fleet", id: "flags") }
    var fleetCounter: SyncState<Int> { syncState(initial: 0, feature: "Fleet", id: "counter") }
}

func runCommand() async throws {
    switch command {
    case "state-watch":
        let expected = arguments[3] == "true"
        while case .starting = store.status { try await Task.sleep(for: .milliseconds(10)) }
        Application.promote(\.syncStore, with: store)
        var iterator = Application.values(of: \.fleetFlags).makeAsyncIterator()
        _ = await iterator.next()
        say("READY")
        while let flags = await iterator.next() {
            if flags["beta"] == expected { say("SEEN"); return }
        }
    case "state-increment":
        while case .starting = store.status { try await Task.sleep(for: .milliseconds(10)) }
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
        let feed = store.changes()
        while case .starting = store.status { try await Task.sleep(for: .milliseconds(10)) }
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

await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { await client.run() }
    group.addTask { try await store.run() }
    do {
        try await runCommand()
    } catch {
        fail("\(command) failed: \(error)")
    }
    group.cancelAll()
}
exit(0)
#else
FileHandle.standardError.write(Data("_AppStateKitPostgresChild: built without the PostgreSQL trait\n".utf8))
exit(2)
#endif
