import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The lock AppStateKit uses (`pthread_mutex_t`), written out again so the floor doesn't
/// depend on the library.
final class FloorLock: @unchecked Sendable {
    // Safe: the mutex is only used through pthread calls.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(mutex, nil) }
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// The floor: what anyone could write in ten lines — a lock-protected `[Int: Any]` lookup with
/// a cast.
final class FloorRegistry: @unchecked Sendable {
    // Safe: `values` is only accessed while `lock` is held.
    private let lock = FloorLock()
    private var values: [Int: Any] = [:]

    init() {
        for key in 0..<64 { values[key] = BenchService() }
    }

    @inline(never)
    func service(_ key: Int) -> BenchService {
        lock.lock()
        defer { lock.unlock() }
        return values[key] as! BenchService
    }

    @inline(never)
    func counter(_ key: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return values[key] as? Int ?? 0
    }

    @inline(never)
    func setCounter(_ key: Int, _ value: Int) {
        lock.lock()
        defer { lock.unlock() }
        values[key] = value
    }
}

/// The service every library resolves.
final class BenchService: Sendable {
    let id = 1
}
