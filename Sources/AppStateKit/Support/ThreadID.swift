#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The identity of the calling OS thread, used to detect re-entry and dependency cycles.
///
/// Factories and update closures are synchronous, so the thread that starts one is the thread
/// that finishes it, even inside an `async` function.
@usableFromInline
struct ThreadID: Hashable, Sendable {
    /// The thread's `pthread_t` as an integer; never 0 for a live thread.
    @usableFromInline let rawValue: UInt

    @usableFromInline
    init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    @inlinable
    static var current: ThreadID {
        #if canImport(Darwin)
        ThreadID(rawValue: UInt(bitPattern: pthread_self()))
        #else
        ThreadID(rawValue: UInt(pthread_self()))
        #endif
    }
}
