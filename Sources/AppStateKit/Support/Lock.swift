#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-recursive mutual-exclusion lock over `pthread_mutex_t`.
///
/// Why not `Synchronization.Mutex`: with Swift 6.3.1 on Linux, ThreadSanitizer cannot see the
/// futex behind `Mutex.withLock` and reports every protected access as a race, which would make
/// the TSan run in `.ci/run` useless. `pthread_mutex_t` is understood by TSan, is available on
/// every platform we build for, and measured faster than `Mutex<[Int: Any]>` uncontended (the
/// `NSLock` figure of 53 ns against 65 ns is a `pthread_mutex_t` plus a class dispatch).
/// Every return code is checked: a failing lock is a broken invariant, not a recoverable error.
///
/// Debug builds make the mutex error-checking (`PTHREAD_MUTEX_ERRORCHECK`), so locking it twice
/// on one thread, or unlocking it from a thread that doesn't hold it, stops the process at
/// once instead of deadlocking or corrupting the mutex; release builds use a normal mutex.
@usableFromInline
final class Lock: @unchecked Sendable {
    // Safe: the pointer is allocated once, never reassigned, and only used through pthread calls.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline
    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        var result = pthread_mutexattr_init(&attributes)
        precondition(result == 0, "AppStateKit: pthread_mutexattr_init failed with \(result)")
        result = pthread_mutexattr_settype(&attributes, Lock.mutexType)
        precondition(result == 0, "AppStateKit: pthread_mutexattr_settype failed with \(result)")
        result = pthread_mutex_init(mutex, &attributes)
        precondition(result == 0, "AppStateKit: pthread_mutex_init failed with \(result)")
        result = pthread_mutexattr_destroy(&attributes)
        precondition(result == 0, "AppStateKit: pthread_mutexattr_destroy failed with \(result)")
    }

    /// Error-checking in debug builds (see the type's documentation), normal otherwise.
    private static var mutexType: Int32 {
        #if DEBUG
        Int32(PTHREAD_MUTEX_ERRORCHECK)
        #else
        Int32(PTHREAD_MUTEX_NORMAL)
        #endif
    }

    deinit {
        let result = pthread_mutex_destroy(mutex)
        precondition(result == 0, "AppStateKit: pthread_mutex_destroy failed with \(result)")
        mutex.deallocate()
    }

    @inlinable
    func lock() {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "AppStateKit: pthread_mutex_lock failed with \(result)")
    }

    @inlinable
    func unlock() {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "AppStateKit: pthread_mutex_unlock failed with \(result)")
    }

    /// Takes the lock if it is free; returns whether it did. Any answer but "taken" or "busy"
    /// stops a debug build (release builds skip the check: this is on every state read).
    @inlinable
    func tryLock() -> Bool {
        let result = pthread_mutex_trylock(mutex)
        assert(result == 0 || result == EBUSY, "AppStateKit: pthread_mutex_trylock failed with \(result)")
        return result == 0
    }

    /// Runs `body` with the lock held. `body` must not call back into code that takes this lock.
    @inlinable
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Blocks on `condition` until signalled; the lock must be held and is held again on return.
    func wait(on condition: Condition) {
        let result = pthread_cond_wait(condition.pointer, mutex)
        precondition(result == 0, "AppStateKit: pthread_cond_wait failed with \(result)")
    }

    /// Like ``wait(on:)``, but gives up at `deadline` (a `CLOCK_REALTIME` time, see
    /// ``Condition/deadline(after:)``); returns `false` if it did.
    func wait(on condition: Condition, until deadline: timespec) -> Bool {
        var deadline = deadline
        let result = pthread_cond_timedwait(condition.pointer, mutex, &deadline)
        if result == ETIMEDOUT { return false }
        precondition(result == 0, "AppStateKit: pthread_cond_timedwait failed with \(result)")
        return true
    }
}

/// A condition variable used with ``Lock/wait(on:)``.
final class Condition: @unchecked Sendable {
    // Safe: allocated once and only used through pthread calls.
    fileprivate let pointer: UnsafeMutablePointer<pthread_cond_t>

    init() {
        pointer = .allocate(capacity: 1)
        let result = pthread_cond_init(pointer, nil)
        precondition(result == 0, "AppStateKit: pthread_cond_init failed with \(result)")
    }

    deinit {
        let result = pthread_cond_destroy(pointer)
        precondition(result == 0, "AppStateKit: pthread_cond_destroy failed with \(result)")
        pointer.deallocate()
    }

    /// The `CLOCK_REALTIME` time `duration` from now, for ``Lock/wait(on:until:)``.
    static func deadline(after duration: Duration) -> timespec {
        var now = timespec()
        let result = clock_gettime(CLOCK_REALTIME, &now)
        precondition(result == 0, "AppStateKit: clock_gettime failed with \(errno)")
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        return timespec(
            tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000,
            tv_nsec: nanoseconds % 1_000_000_000
        )
    }

    /// Wakes one thread waiting on the condition, if any.
    func signal() {
        let result = pthread_cond_signal(pointer)
        precondition(result == 0, "AppStateKit: pthread_cond_signal failed with \(result)")
    }

    /// Wakes every thread waiting on the condition.
    func broadcast() {
        let result = pthread_cond_broadcast(pointer)
        precondition(result == 0, "AppStateKit: pthread_cond_broadcast failed with \(result)")
    }
}
