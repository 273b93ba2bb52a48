#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A non-recursive mutual-exclusion lock over `pthread_mutex_t`.
///
/// Not `Synchronization.Mutex`: on Linux, ThreadSanitizer cannot see the futex behind it and
/// reports every protected access as a race; it understands `pthread_mutex_t`. Every return code
/// is checked: a failing lock is a broken invariant, not a recoverable error. Debug builds make
/// the mutex error-checking, so relocking it on one thread or unlocking it from another stops
/// the process at once instead of deadlocking, and check the ``LockOrder`` of ranked locks.
@usableFromInline
package final class Lock: @unchecked Sendable {
    // Safe: the pointer is allocated once, never reassigned, and only used through pthread calls.
    @usableFromInline package let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Where the lock stands in AppStateKit's lock order (checked in debug builds).
    @usableFromInline package let order: LockOrder

    @usableFromInline
    package init(order: LockOrder = .unordered) {
        self.order = order
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
    package func lock() {
        #if DEBUG
        if order.rank != 0 { order.willWait() }
        #endif
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "AppStateKit: pthread_mutex_lock failed with \(result)")
        #if DEBUG
        if order.rank != 0 { order.taken() }
        #endif
    }

    @inlinable
    package func unlock() {
        #if DEBUG
        if order.rank != 0 { order.released() }
        #endif
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "AppStateKit: pthread_mutex_unlock failed with \(result)")
    }

    /// Takes the lock if it is free; returns whether it did. Any answer but "taken" or "busy"
    /// stops a debug build (release builds skip the check: this is on every state read).
    @inlinable
    package func tryLock() -> Bool {
        let result = pthread_mutex_trylock(mutex)
        assert(result == 0 || result == EBUSY, "AppStateKit: pthread_mutex_trylock failed with \(result)")
        #if DEBUG
        // A lock taken without waiting can't close a cycle, so only counted.
        if result == 0 && order.rank != 0 { order.taken() }
        #endif
        return result == 0
    }

    /// Runs `body` with the lock held. `body` must not call back into code that takes this lock.
    @inlinable
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Blocks on `condition` until signalled; the lock must be held and is held again on return.
    func wait(on condition: Condition) {
        let result = pthread_cond_wait(condition.pointer, mutex)
        precondition(result == 0, "AppStateKit: pthread_cond_wait failed with \(result)")
    }

    /// Like ``wait(on:)``, but gives up at `deadline` (see ``Condition/deadline(after:)``);
    /// returns `false` if it did.
    func wait(on condition: Condition, until deadline: Condition.Deadline) -> Bool {
        var deadline = deadline
        let result = pthread_cond_timedwait(condition.pointer, mutex, &deadline)
        if result == ETIMEDOUT { return false }
        precondition(result == 0, "AppStateKit: pthread_cond_timedwait failed with \(result)")
        return true
    }
}

/// A condition variable used with ``Lock/wait(on:)``.
package final class Condition: @unchecked Sendable {
    // Safe: allocated once and only used through pthread calls.
    fileprivate let pointer: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        pointer = .allocate(capacity: 1)
        let result = pthread_cond_init(pointer, nil)
        precondition(result == 0, "AppStateKit: pthread_cond_init failed with \(result)")
    }

    deinit {
        let result = pthread_cond_destroy(pointer)
        precondition(result == 0, "AppStateKit: pthread_cond_destroy failed with \(result)")
        pointer.deallocate()
    }

    /// A `CLOCK_REALTIME` time, as ``Lock/wait(on:until:)`` takes it.
    typealias Deadline = timespec

    /// The time `duration` from now, for ``Lock/wait(on:until:)``.
    static func deadline(after duration: Duration) -> Deadline {
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

    package func signal() {
        let result = pthread_cond_signal(pointer)
        precondition(result == 0, "AppStateKit: pthread_cond_signal failed with \(result)")
    }

    package func broadcast() {
        let result = pthread_cond_broadcast(pointer)
        precondition(result == 0, "AppStateKit: pthread_cond_broadcast failed with \(result)")
    }
}

/// A value paired with the lock that guards it (like swift-nio's `NIOLockedValueBox`): the
/// value is reachable only through ``withLock(_:)``, so nobody touches it without the lock.
/// It is `Sendable` only where its value is: the lock keeps accesses apart, but a value that
/// is not `Sendable` (a class with unguarded state, a closure) would still escape to the
/// threads that read it.
@usableFromInline
package final class LockedBox<Value> {
    @usableFromInline package let lock: Lock
    /// The value, behind a pointer: the runtime's exclusivity checks of a stored `var` would
    /// guard nothing the lock doesn't.
    @usableFromInline package let value: UnsafeMutablePointer<Value>

    /// A box whose lock stands at `order` in AppStateKit's lock order (see ``LockOrder``).
    package init(_ value: Value, order: LockOrder = .unordered) {
        lock = Lock(order: order)
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` on the value with the lock held. `body` must not take this lock again, nor
    /// run user code, logging or I/O (the two boxes that do say why at their declaration).
    @inlinable @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value.pointee)
    }

    /// Runs `body` on the value with the lock held until it returns a result; after each `nil`,
    /// waits on `condition` (lock released) until signalled or `timeout` passes, then runs it
    /// again, telling it whether that wait ran out.
    package func withLock<Result>(waitingOn condition: Condition, timeout: Duration, _ body: (inout Value, _ timedOut: Bool) -> Result?) -> Result {
        lock.lock()
        defer { lock.unlock() }
        var timedOut = false
        while true {
            if let result = body(&value.pointee, timedOut) { return result }
            timedOut = !lock.wait(on: condition, until: Condition.deadline(after: timeout))
        }
    }
}

// @unchecked: the pointee is only accessed inside `withLock`, with `lock` held; the pointer is
// allocated once, never reassigned, and freed in `deinit`; the value itself is Sendable.
extension LockedBox: @unchecked Sendable where Value: Sendable {}

/// A heap-allocated atomic word, owned by exactly one stored property.
///
/// Classes on the inlinable access path hold atomics through this wrapper: a client module that
/// inlines from a class whose deinit destroys a stored `Atomic` crashes the Swift 6.3 compiler.
/// The word is non-copyable, so it is freed exactly once, with its owner. Code reading a word
/// owned elsewhere takes a ``View``, valid only while whoever keeps it also keeps the owner.
/// One method per ordering: `Atomic` requires orderings to be compile-time constants.
@usableFromInline
package struct AtomicWord: ~Copyable, @unchecked Sendable {
    // Safe: the pointee is only accessed through atomic operations, and freed once, by deinit.
    @usableFromInline package let pointer: UnsafeMutablePointer<Atomic<UInt64>>

    @usableFromInline
    package init(_ initial: UInt64) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: Atomic(initial))
    }

    @usableFromInline
    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    @inlinable
    package func loadAcquiring() -> UInt64 {
        pointer.pointee.load(ordering: .acquiring)
    }

    @inlinable
    package func loadRelaxed() -> UInt64 {
        view.loadRelaxed()
    }

    @inlinable
    package func storeRelaxed(_ value: UInt64) {
        view.storeRelaxed(value)
    }

    @inlinable
    package func loadSequentiallyConsistent() -> UInt64 {
        pointer.pointee.load(ordering: .sequentiallyConsistent)
    }

    @usableFromInline
    package func storeSequentiallyConsistent(_ value: UInt64) {
        pointer.pointee.store(value, ordering: .sequentiallyConsistent)
    }

    @usableFromInline
    package func incrementReleasing() {
        view.incrementReleasing()
    }

    /// Moves the word to the next number with a releasing store, not a read-modify-write: for
    /// words only one thread at a time writes (under a lock that guards them).
    @inlinable
    package func advanceReleasing() {
        pointer.pointee.store(pointer.pointee.load(ordering: .relaxed) &+ 1, ordering: .releasing)
    }

    /// A view of this word for another object, valid while this word's owner lives.
    @inlinable
    package var view: View { View(pointer: pointer) }

    /// A copyable, unowned view of an ``AtomicWord``: it neither keeps the word alive nor frees
    /// it. Hold it only next to a strong reference to the word's owner.
    @usableFromInline
    package struct View: @unchecked Sendable {
        // Safe: the pointee is only accessed atomically; the holder keeps the owner alive.
        @usableFromInline package let pointer: UnsafeMutablePointer<Atomic<UInt64>>

        @usableFromInline
        package init(pointer: UnsafeMutablePointer<Atomic<UInt64>>) {
            self.pointer = pointer
        }

        @inlinable
        package func loadRelaxed() -> UInt64 {
            pointer.pointee.load(ordering: .relaxed)
        }

        @inlinable
        package func loadAcquiring() -> UInt64 {
            pointer.pointee.load(ordering: .acquiring)
        }

        @inlinable
        package func storeRelaxed(_ value: UInt64) {
            pointer.pointee.store(value, ordering: .relaxed)
        }

        package func incrementReleasing() {
            pointer.pointee.add(1, ordering: .releasing)
        }
    }
}

/// The identity of the calling OS thread, used to detect re-entry and dependency cycles
/// (factories and update closures are synchronous, so one thread runs each from start to end).
@usableFromInline
package struct ThreadID: Hashable, Sendable {
    /// The thread's `pthread_t` as an integer; never 0 for a live thread.
    @usableFromInline package let rawValue: UInt

    @usableFromInline
    package init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    @inlinable
    package static var current: ThreadID {
        #if canImport(Darwin)
        ThreadID(rawValue: UInt(bitPattern: pthread_self()))
        #else
        ThreadID(rawValue: UInt(pthread_self()))
        #endif
    }
}
