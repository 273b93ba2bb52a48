// The child's LocalSyncStore commands (`sync-…`), for the cross-process tests of the embedded
// sync store. Each prints one line per acknowledged step, so the parent can follow and kill it.
import AppStateKit
import Foundation

/// Runs a `sync-…` command and exits: 0 on success, 1 with the error on standard error.
func runSyncCommand(_ arguments: [String]) -> Never {
    let status = Locked(Int32(0))
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            try await SyncCommand.run(arguments)
        } catch {
            FileHandle.standardError.write(Data("\(arguments[0]) failed: \(error)\n".utf8))
            status.set(1)
        }
        done.signal()
    }
    done.wait()
    exit(status.get())
}

extension Application {
    /// The SyncState both the child and `SyncStateProcessTests` declare (same feature and id, so
    /// the same store key).
    var childSyncCounter: SyncState<Int> { syncState(initial: 0, feature: "Child", id: "counter") }
}

enum SyncCommand {
    static func run(_ arguments: [String]) async throws {
        let store = LocalSyncStore(path: arguments[1])
        switch arguments[0] {
        case "sync-write":
            // sync-write <path> <key> <count>: writes 0, 1, … as the key's JSON value; prints each
            // once `write` returned.
            let key = arguments[2]
            for value in 0..<Int(arguments[3])! {
                _ = try await store.write(Data("\(value)".utf8), forKey: key)
                acknowledge("\(value)")
            }
        case "sync-increment":
            // sync-increment <path> <key> <count>: adds 1 to the key's integer `count` times by
            // compare-and-set, retrying on conflict; prints "done <conflicts>".
            let key = arguments[2]
            var conflicts = 0
            for _ in 0..<Int(arguments[3])! {
                var current = try await store.fetchRecord(forKey: key)
                while true {
                    let next = (current?.value.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0) + 1
                    switch try await store.compareAndSet(Data("\(next)".utf8), forKey: key, expectedVersion: current?.version ?? 0) {
                    case .committed:
                        break
                    case let .conflict(now):
                        conflicts += 1
                        current = now
                        continue
                    }
                    break
                }
            }
            acknowledge("done \(conflicts)")
        case "sync-watch":
            // sync-watch <path> <key> <value>: prints "ready" once its feed is open, then
            // "seen <version>" when the feed delivers <value> for <key>.
            let key = arguments[2]
            let expected = Data(arguments[3].utf8)
            let feed = SyncChange.records(of: store.changeFeed())
            acknowledge("ready")
            for await record in feed where record.key == key && record.value == expected {
                acknowledge("seen \(record.version)")
                return
            }
        case "sync-survive":
            // sync-survive <path> <key> <count>: writes 0, 1, … to <key> while another program
            // damages the file, reading every key after each write (read errors are expected);
            // any failed write ends the command with an error. Reports are counted, not
            // printed; prints "done <count> writes, <reports> reports".
            let reports = Locked(0)
            Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { (_: String) in reports.set(reports.get() + 1) }))
            let key = arguments[2]
            let count = Int(arguments[3])!
            for value in 0..<count {
                _ = try await store.write(Data("\(value)".utf8), forKey: key)
                _ = try? await store.snapshot()
                for other in ["App/a", "App/victim", "App/parent"] { _ = try? store.cachedRecord(forKey: other) }
                try await Task.sleep(for: .milliseconds(5))
            }
            acknowledge("done \(count) writes, \(reports.get()) reports")
        case "sync-state-increment":
            // sync-state-increment <path> <count>: `Application.syncState(\.childSyncCounter)
            // .update { $0 += 1 }` `count` times on this store; prints "done <value>".
            Application.promote(\.syncStore, with: store)
            var last = 0
            for _ in 0..<Int(arguments[2])! {
                last = try await Application.syncState(\.childSyncCounter).update { $0 += 1 }
            }
            acknowledge("done \(last)")
        case "sync-state-set":
            // sync-state-set <path> <value>: assigns through the synchronous setter (write-behind)
            // and then waits until the store committed it; prints "set".
            let counter = assignCounter(Int(arguments[2])!, on: store)
            _ = try await counter.read()  // waits for the queued write
            acknowledge("set")
        case "sync-state-set-exit":
            // sync-state-set-exit <path> <value>: assigns through the synchronous setter and
            // exits at once, leaving the write to the exit handler.
            assignCounter(Int(arguments[2])!, on: store)
            acknowledge("set")
        case "sync-state-burst-exit":
            // sync-state-burst-exit <path> <count>: adds 1 to `childSyncCounter` through the
            // synchronous setter `count` times and exits at once, leaving the queued writes to
            // the exit handler.
            Application.promote(\.syncStore, with: store)
            var counter = Application.syncState(\.childSyncCounter)
            for _ in 0..<Int(arguments[2])! {
                counter.value += 1
            }
            acknowledge("set")
        case "sync-state-set-stuck":
            // sync-state-set-stuck <path> <value>: assigns through the synchronous setter on a
            // store whose writes never finish, then exits (the exit handler reports the write).
            assignCounter(Int(arguments[2])!, on: NeverWritingSyncStore())
            acknowledge("set")
        default:
            throw SyncCommandError(message: "unknown command \(arguments[0])")
        }
    }
}

/// Makes `store` the application's sync store and assigns `value` to `childSyncCounter` through
/// the synchronous setter (the write is queued, not awaited).
@discardableResult
func assignCounter(_ value: Int, on store: any SyncStore) -> Application.SyncState<Int> {
    Application.promote(\.syncStore, with: store)
    var counter = Application.syncState(\.childSyncCounter)
    counter.value = value
    return counter
}

struct SyncCommandError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A value behind a lock, for the command's exit status.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is only accessed while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}

/// An in-memory store whose writes never finish: what a store that hangs looks like.
struct NeverWritingSyncStore: SyncStore {
    let base = InMemorySyncStore()

    func cachedRecord(forKey key: String) throws -> SyncRecord? { try base.cachedRecord(forKey: key) }
    func fetchRecord(forKey key: String) async throws -> SyncRecord? { try await base.fetchRecord(forKey: key) }
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try await base.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }
    func snapshot() async throws -> [SyncRecord] { try await base.snapshot() }
    func changeFeed() -> AsyncStream<SyncChange> { base.changeFeed() }
}
