import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

@Suite("BlockingIOPool", .isolatedApplication)
struct BlockingIOPoolTests {
    @Test("jobs run at once on threads of their own, up to the maximum; the rest queue and run in turn")
    func startsThreadsUpToTheMaximum() async throws {
        let pool = BlockingIOPool(maximumThreads: 2, idleTimeout: .seconds(60))
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for _ in 0..<3 {
            finished.enter()
            pool.submit {
                started.signal()
                release.wait()
                finished.leave()
            }
        }
        // Two jobs run at the same time (each blocked in `release.wait()`); the third waits.
        #expect(started.wait(timeout: .now() + 10) == .success)
        #expect(started.wait(timeout: .now() + 10) == .success)
        #expect(pool.status == BlockingIOPool.Status(threads: 2, idle: 0, queued: 1))
        for _ in 0..<3 { release.signal() }
        #expect(finished.wait(timeout: .now() + 10) == .success)
    }

    @Test("run suspends the caller and returns the job's result or rethrows its error")
    func runReturnsResults() async throws {
        struct Failure: Error, Equatable {}
        let pool = BlockingIOPool(maximumThreads: 4, idleTimeout: .seconds(60))
        #expect(try await pool.run { (Thread.current.name ?? "") } == BlockingIOPool.threadName)
        await #expect(throws: Failure()) { try await pool.run { throw Failure() } }
        // Eight concurrent callers on a pool of 4 threads: every one gets its result (the jobs
        // beyond 4 queue), and the pool never starts more than its maximum.
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 { group.addTask { try await pool.run { index * 2 } } }
            return try await group.reduce(0, +)
        }
        #expect(results == 56)
        #expect(pool.status.threads <= 4)
    }

    @Test("under sustained load (the queue never empties) jobs already run are released with what they captured")
    func releasesRunJobsWhileTheQueueIsNotEmpty() throws {
        final class Tracked: Sendable {}
        let pool = BlockingIOPool(maximumThreads: 1, idleTimeout: .seconds(60))
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        let reachedSecond = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        var released: [() -> Bool] = []
        func submitTracked() {
            let tracked = Tracked()
            released.append { [weak tracked] in tracked == nil }
            pool.submit { _ = tracked }
        }
        pool.submit { first.wait() }
        for _ in 0..<100 { submitTracked() }
        pool.submit {
            reachedSecond.signal()
            second.wait()
        }
        for _ in 0..<100 { submitTracked() }
        pool.submit { finished.signal() }
        first.signal()
        // The thread ran the first 100 tracked jobs and waits in the next one, 101 jobs queued.
        #expect(reachedSecond.wait(timeout: .now() + 10) == .success)
        #expect(pool.status.queued == 101)
        #expect(released.prefix(100).allSatisfy { $0() })
        #expect(released.suffix(100).allSatisfy { !$0() })
        second.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
    }

    @Test("a thread idle for the idle timeout ends")
    func idleThreadsEnd() async throws {
        let pool = BlockingIOPool(maximumThreads: 3, idleTimeout: .milliseconds(20))
        #expect(try await pool.run { pool.status.threads } == 1)
        // Bounded: the thread ends within about 20 ms; give it up to 10 s on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(10)
        while pool.status.threads > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(pool.status == BlockingIOPool.Status(threads: 0, idle: 0, queued: 0))
        // And a new job starts a new thread.
        #expect(try await pool.run { 2 } == 2)
    }
}
