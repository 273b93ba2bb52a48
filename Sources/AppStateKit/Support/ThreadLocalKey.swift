#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// pthread keys for per-thread objects.
enum ThreadLocalKey {
    /// A new key whose destructor releases the object a thread stored under it (stored retained,
    /// with `Unmanaged.passRetained`) when the thread exits.
    static func releasingObjects() -> pthread_key_t {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(result == 0, "AppStateKit: pthread_key_create failed with \(result)")
        return key
    }
}
