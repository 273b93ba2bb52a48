#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The SyncState writes this process has queued and that have not settled yet, across every
/// application.
///
/// The synchronous setter returns before its write reaches the store, so a command-line tool
/// whose last line assigns a SyncState would otherwise exit with the write still queued and lose
/// it without a word. The first queued write installs an exit handler: when the process exits
/// normally (`exit`, or returning from `main`), it waits up to ``exitWait`` for the queued writes
/// to settle, and reports every key whose write was still pending then (a write that settles with
/// an error is reported as usual by its entry). A process killed by a signal runs no handler.
enum PendingSyncWrites {
    /// How long an exiting process waits for its queued writes.
    static let exitWait: Duration = .seconds(5)

    private struct State {
        /// Each store key with writes in flight, and how many.
        var keys: [String: Int] = [:]
        var isExitHandlerInstalled = false
    }

    private static let state = LockedBox(State())

    /// Notes a write of `key` queued; installs the exit handler with the first one.
    static func begin(_ key: String) {
        let install = state.withLock { state in
            state.keys[key, default: 0] += 1
            defer { state.isExitHandlerInstalled = true }
            return !state.isExitHandlerInstalled
        }
        if install {
            atexit { PendingSyncWrites.waitAtExit() }
        }
    }

    /// Notes that a write of `key` begun with ``begin(_:)`` settled.
    static func end(_ key: String) {
        state.withLock { state in
            guard let count = state.keys[key] else {
                assertionFailure("AppStateKit: internal error: a SyncState write of \"\(key)\" settled twice")
                return
            }
            state.keys[key] = count > 1 ? count - 1 : nil
        }
    }

    /// The keys with writes in flight, sorted.
    static var pendingKeys: [String] {
        state.withLock { $0.keys.keys.sorted() }
    }

    /// Waits until no write is in flight or `timeout` has passed; returns the keys still pending.
    static func waitUntilSettled(timeout: Duration) -> [String] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let pending = pendingKeys
            if pending.isEmpty || clock.now >= deadline { return pending }
            usleep(1_000)
        }
    }

    /// The exit handler: waits for the queued writes, then reports those that didn't settle.
    private static func waitAtExit() {
        let pending = waitUntilSettled(timeout: exitWait)
        guard !pending.isEmpty else { return }
        let keys = pending.map { "\"\($0)\"" }.joined(separator: ", ")
        Diagnostics.report(
            error: "AppStateKit: the process is exiting with SyncState writes of \(keys) not committed after waiting \(exitWait); "
                + "they are lost. Await write(_:) (or read()) to know a value was committed"
        )
    }
}
