import AppStateKit
import Foundation

extension Application {
    var benchSyncCounter: SyncState<Int> { syncState(initial: 0, feature: "Bench", id: "syncCounter") }
    var benchNamedCounter: State<Int> { state(initial: 0, feature: "Bench", id: "namedCounter") }
}

/// SyncState reads next to State reads: a SyncState read is served from the entry's local cache
/// (in-memory store here; the store is never called on a read).
enum SyncStateCases {
    static func read() -> [BenchmarkCase] {
        Application.promote(\.syncStore, with: InMemorySyncStore())
        return [
            BenchmarkCase(name: "AppStateKit State read (feature/id)", group: "sync") { n in
                for _ in 0..<n { blackHole(Application.state(\.benchNamedCounter).value) }
            },
            BenchmarkCase(name: "AppStateKit SyncState read", group: "sync") { n in
                for _ in 0..<n { blackHole(Application.syncState(\.benchSyncCounter).value) }
            },
        ]
    }
}
