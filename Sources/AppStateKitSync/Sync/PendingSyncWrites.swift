import AppStateKitCore
import AppStateKitPersistence
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

    /// Each store key with writes in flight, and how many.
    private static let keys = LockedBox<[String: Int]>([:])

    /// Installs the exit handler, once: Swift runs a static's initialiser exactly once.
    private static let exitHandler: Void = {
        atexit { PendingSyncWrites.waitAtExit() }
    }()

    /// Notes a write of `key` queued; the first one installs the exit handler.
    static func begin(_ key: String) {
        exitHandler
        keys.withLock { $0[key, default: 0] += 1 }
    }

    /// Notes that `count` writes of `key` begun with ``begin(_:)`` settled (more than one when
    /// a queued write replaced superseded ones).
    static func end(_ key: String, count settled: Int = 1) {
        keys.withLock { keys in
            guard let count = keys[key], count >= settled else {
                assertionFailure("AppStateKit: internal error: more SyncState writes of \"\(key)\" settled than were queued")
                return
            }
            keys[key] = count > settled ? count - settled : nil
        }
    }

    /// The exit handler: waits until no write is in flight or ``exitWait`` has passed, then
    /// reports the keys whose writes didn't settle.
    private static func waitAtExit() {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: exitWait)
        while !keys.withLock({ $0.isEmpty }), clock.now < deadline {
            usleep(1_000)
        }
        let pending = keys.withLock { $0.keys.sorted() }
        guard !pending.isEmpty else { return }
        let names = pending.map { "\"\($0)\"" }.joined(separator: ", ")
        Diagnostics.report(
            error: "AppStateKit: the process is exiting with SyncState writes of \(names) not committed after waiting \(exitWait); "
                + "they are lost. Await write(_:) (or read()) to know a value was committed"
        )
    }
}
