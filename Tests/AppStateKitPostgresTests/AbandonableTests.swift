#if PostgreSQL
import AppStateKit
@testable import AppStateKitPostgres
import AppStateKitTesting
import Synchronization
import Testing

/// What keeps `PostgresSyncStore.run()` and its operations from hanging on a connection that
/// died without closing: work whose await ignores cancellation (as postgres-nio's notification
/// sequence did after a server restart) is abandoned, not awaited. No server needed.
@Suite("Abandonable work", .isolatedApplication)
struct AbandonableTests {
    /// An await that only `open()` ends and that ignores cancellation.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    struct WatchdogFired: Error {}

    @Test("a stuck round ends with the error its watchdog reports")
    func abandonEndsAStuckRound() async {
        let gate = Gate()
        await #expect(throws: WatchdogFired.self) {
            try await Abandonable.run { abandon in
                Task {
                    try await Task.sleep(for: .milliseconds(20))
                    abandon(WatchdogFired())
                }
                await gate.wait()
                return 0
            }
        }
        gate.open()
    }

    @Test("cancelling the caller ends a stuck round with CancellationError")
    func cancellationEndsAStuckRound() async {
        let gate = Gate()
        let caller = Task {
            try await Abandonable.run { _ in
                await gate.wait()
                return 0
            }
        }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        gate.open()
    }

    @Test("work that finishes returns its result, and a later abandon changes nothing")
    func resultWins() async throws {
        let kept = Mutex<(@Sendable (any Error) -> Void)?>(nil)
        let result = try await Abandonable.run { abandon in
            kept.withLock { $0 = abandon }
            return 42
        }
        #expect(result == 42)
        // A watchdog firing late must not resume the caller a second time (that would trap).
        let late = try #require(kept.withLock { $0 })
        late(WatchdogFired())
    }

    @Test("an operation stuck past its deadline on the store's clock fails with the timeout error, not before")
    func deadlineEndsAStuckOperation() async {
        let gate = Gate()
        let clock = TestClock()
        let operation = Task {
            try await OperationDeadline.run(timeout: .seconds(20), clock: WaitClock(clock), timeoutError: { WatchdogFired() }) {
                await gate.wait()
                return 0
            }
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(19))
        #expect(clock.sleeperCount == 1, "the deadline has not passed")
        await clock.advance(by: .seconds(1))
        await #expect(throws: WatchdogFired.self) { try await operation.value }
        gate.open()
    }
}
#endif
