#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A process-wide string setting, read on hot paths from many threads and set rarely.
///
/// Handing out one shared `String` would make every reader retain and release the same storage:
/// an atomic write to one cache line from every processor. Instead each thread reads its own
/// copy (its own storage), made under the lock the first time and again after each change; a
/// read is then one atomic load, a thread-local lookup and a retain nobody else contends.
final class ThreadCopiedString: Sendable {
    private let lock = Lock()
    // Safe: only accessed while `lock` is held.
    nonisolated(unsafe) private var stored: String?
    /// Advanced (under `lock`) whenever `stored` changes; 0 while it is unset.
    private let version = Atomic<UInt64>(0)
    /// Each thread's copy, a `Copy` stored retained.
    private let threadKey = ThreadLocalKey.releasingObjects()

    /// One thread's copy, of the value at `version`.
    private final class Copy {
        let version: UInt64
        let value: String

        init(version: UInt64, value: String) {
            self.version = version
            // A new string with storage of its own (a plain copy would share the original's).
            self.value = String(decoding: Array(value.utf8), as: UTF8.self)
        }
    }

    init() {}

    /// The value, or `nil` while it is unset.
    var value: String? {
        let current = version.load(ordering: .acquiring)
        guard current != 0 else { return nil }
        if let pointer = pthread_getspecific(threadKey) {
            let copy = Unmanaged<Copy>.fromOpaque(pointer)
            if copy._withUnsafeGuaranteedRef({ $0.version == current }) {
                return copy._withUnsafeGuaranteedRef { $0.value }
            }
        }
        return refreshCopy()
    }

    /// Sets the value unless one is set already; returns the value now set.
    func setIfUnset(_ newValue: String) -> String {
        lock.withLock {
            if let stored { return stored }
            store(newValue)
            return newValue
        }
    }

    /// Sets the value.
    func set(_ newValue: String) {
        lock.withLock { store(newValue) }
    }

    /// Call with `lock` held.
    private func store(_ newValue: String) {
        stored = newValue
        version.wrappingAdd(1, ordering: .releasing)
    }

    /// Replaces the calling thread's copy with one of the current value.
    private func refreshCopy() -> String? {
        let copy: Copy? = lock.withLock {
            stored.map { Copy(version: version.load(ordering: .relaxed), value: $0) }
        }
        guard let copy else { return nil }
        let previous = pthread_getspecific(threadKey)
        let result = pthread_setspecific(threadKey, Unmanaged.passRetained(copy).toOpaque())
        precondition(result == 0, "AppStateKit: pthread_setspecific failed with \(result)")
        if let previous { Unmanaged<Copy>.fromOpaque(previous).release() }
        return copy.value
    }
}
