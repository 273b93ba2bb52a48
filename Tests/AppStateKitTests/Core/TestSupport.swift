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
    private let storage = Mutex<[String]>([])

    var messages: [String] { storage.withLock { $0 } }

    func append(_ message: String) {
        storage.withLock { $0.append(message) }
    }
}
