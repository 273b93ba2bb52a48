import AppStateKitCore
import Foundation

/// Threads of the library's own for blocking file I/O started from `async` code, so an `fsync`
/// never holds a cooperative-pool thread or a NIO event loop: the task is suspended
/// (``run(_:)``) while a thread here blocks. Threads start on demand up to ``maximumThreads``
/// and end after ``idleTimeout``; jobs beyond the maximum wait in arrival order. There are more
/// threads than cores because durable writes of one ``FileKeyValueStore`` share commits: they
/// wait for the disk, not the processor (the number it serves: 8 writer tasks against one,
/// section 6f of the benchmarks).
final class BlockingIOPool: Sendable {
    /// The pool AppStateKit's `async` persistence operations use.
    static let shared = BlockingIOPool(maximumThreads: 16, idleTimeout: .seconds(10))

    /// At most 15 bytes: Linux keeps no more of a thread's name.
    static let threadName = "AppStateKit I/O"

    let maximumThreads: Int
    /// How long a thread waits for work before it ends.
    let idleTimeout: Duration

    /// Signalled once for each job queued while a thread is idle.
    private let workQueued = Condition()
    private let storage = LockedBox(Storage())

    private struct Storage {
        /// Jobs not yet taken by a thread, first queued first.
        var jobs: [@Sendable () -> Void] = []
        /// Index of the first job not yet taken in `jobs`.
        var next = 0
        /// Threads started and not yet ended.
        var threads = 0
        /// Threads waiting for a job.
        var idle = 0

        var queued: Int { jobs.count - next }

        mutating func take() -> (@Sendable () -> Void)? {
            guard next < jobs.count else { return nil }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            } else if next >= 32, next * 2 >= jobs.count {
                // A queue that never empties (sustained overload) must not keep every job it
                // ran, nor what they captured: drop the taken ones, amortised O(1) per job.
                jobs.removeFirst(next)
                next = 0
            }
            return job
        }
    }

    struct Status: Equatable {
        var threads: Int
        var idle: Int
        var queued: Int
    }

    init(maximumThreads: Int, idleTimeout: Duration) {
        precondition(maximumThreads > 0, "AppStateKit: a BlockingIOPool needs at least one thread")
        self.maximumThreads = maximumThreads
        self.idleTimeout = idleTimeout
    }

    /// What the pool is doing, for tests.
    var status: Status {
        storage.withLock { Status(threads: $0.threads, idle: $0.idle, queued: $0.queued) }
    }

    /// Runs `job` on one of the pool's threads, starting one if none is idle and the maximum
    /// allows; returns at once.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let startsThread: Bool = storage.withLock { storage in
            storage.jobs.append(job)
            if storage.idle > 0 { workQueued.signal() }
            // Idle threads already signalled count against the jobs they will take.
            guard storage.queued > storage.idle, storage.threads < maximumThreads else { return false }
            storage.threads += 1
            return true
        }
        if startsThread {
            Thread.detachNewThread { [self] in
                Self.nameCallingThread()
                work()
            }
        }
    }

    /// Runs `body` on one of the pool's threads and returns its result, suspending the calling
    /// task (not blocking its thread) meanwhile. `body` runs to the end even if the task is
    /// cancelled: cancellation neither skips nor interrupts it.
    func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            submit {
                continuation.resume(with: Swift.Result { try body() })
            }
        }
    }

    /// Gives the calling thread ``threadName``, as `top -H`, `perf` and debuggers show it.
    /// Best effort: a thread that can't be named works all the same. (Not Foundation's
    /// `Thread.name`: set from inside a new thread, it races with `start()` on Linux and is
    /// sometimes lost; and Glibc's module doesn't export `pthread_setname_np`.)
    private static func nameCallingThread() {
        #if canImport(Darwin)
        pthread_setname_np(threadName)
        #else
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = threadName.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
        #endif
    }

    private func work() {
        while case let .run(job) = next() { job() }
    }

    private enum Next {
        case run(@Sendable () -> Void)
        /// No job arrived for ``idleTimeout``: the thread ends (already uncounted).
        case end
    }

    /// The next job, waiting for one up to ``idleTimeout`` at a time (counted idle meanwhile).
    private func next() -> Next {
        var isIdle = false
        return storage.withLock(waitingOn: workQueued, timeout: idleTimeout) { storage, timedOut in
            if isIdle {
                storage.idle -= 1
                isIdle = false
            }
            if let job = storage.take() { return .run(job) }
            if timedOut {
                storage.threads -= 1
                return .end
            }
            storage.idle += 1
            isIdle = true
            return nil
        }
    }
}
