#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// pthread keys for per-thread objects.
enum ThreadLocalKey {
    /// Every key made by ``releasingObjects()``.
    private static let keys = LockedBox<[pthread_key_t]>([])

    /// A new key whose destructor releases the object a thread stored under it (stored retained,
    /// with `Unmanaged.passRetained`) when the thread exits.
    ///
    /// The release runs on a new, detached thread (see ``releaseOnAnotherThread(_:)``): a
    /// thread's memo may hold the last reference to a whole application, whose teardown runs
    /// arbitrary `deinit`s (cancelling tasks, closing watchers) — code that must not run while
    /// the exiting thread's other thread-local state, libdispatch's among it, is being torn
    /// down.
    static func releasingObjects() -> pthread_key_t {
        var key = pthread_key_t()
        // (The pointer is optional on Linux, not on Darwin: both convert to the parameter.)
        let result = pthread_key_create(&key) { ThreadLocalKey.releaseOnAnotherThread($0) }
        precondition(result == 0, "AppStateKit: pthread_key_create failed with \(result)")
        keys.withLock { $0.append(key) }
        return key
    }

    /// A new key for plain values (an integer as a pointer's bits): no destructor, as there is
    /// nothing to release.
    static func plainValues() -> pthread_key_t {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "AppStateKit: pthread_key_create failed with \(result)")
        return key
    }

    /// Releases the object `pointer` holds retained on a new, detached thread, or here if no
    /// thread can be made.
    ///
    /// Called from a key's destructor, after libdispatch may already have freed the exiting
    /// thread's caches: a `deinit` that then enqueued work (a task's cancellation does) would
    /// make libdispatch set them up and free them a second time (seen as a double free under
    /// AddressSanitizer). On a fresh thread the same `deinit`s run with everything intact, and
    /// the objects they leave under these keys on that thread are released before it ends.
    static func releaseOnAnotherThread(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return release(pointer) }
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(&thread, &attributes, { pointer in
            ThreadLocalKey.release(pointer)
            ThreadLocalKey.releaseCallingThreadObjects()
            return nil
        }, pointer)
        if result != 0 { release(pointer) }
    }

    /// Releases the object `pointer` holds retained, if any.
    private static func release(_ pointer: UnsafeMutableRawPointer?) {
        if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
    }

    /// Releases the calling thread's objects under every key made by ``releasingObjects()``
    /// while the thread is still whole, so its end hands nothing to yet another thread. A
    /// release may make new objects (a `deinit` that reads an entry makes a memo): a few rounds
    /// catch those; anything left after them goes the usual way.
    private static func releaseCallingThreadObjects() {
        let all = keys.withLock { $0 }
        for _ in 0..<4 {
            var releasedAny = false
            for key in all {
                guard let pointer = pthread_getspecific(key) else { continue }
                pthread_setspecific(key, nil)
                release(pointer)
                releasedAny = true
            }
            if !releasedAny { return }
        }
    }
}
