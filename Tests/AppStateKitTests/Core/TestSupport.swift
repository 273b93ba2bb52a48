import Foundation
import Synchronization

/// A thread-safe counter for tests that count factory calls across threads.
final class CallCounter: Sendable {
    private let storage = Atomic<Int>(0)

    var value: Int { storage.load(ordering: .sequentiallyConsistent) }

    @discardableResult
    func increment() -> Int {
        storage.add(1, ordering: .sequentiallyConsistent).newValue
    }
}

/// Collects messages delivered to a test logger.
final class MessageCollector: Sendable {
    private let storage = Locked<[String]>([])

    var messages: [String] { storage.withLock { $0 } }

    func append(_ message: String) {
        storage.withLock { $0.append(message) }
    }
}

/// A value behind an `NSLock`. (Not `Synchronization.Mutex`: ThreadSanitizer on Linux can't see
/// its futex and would report every use as a race.)
final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only accessed while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
