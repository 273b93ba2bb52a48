import Synchronization

/// The callbacks of live change streams, by entry.
///
/// Kept in one process-wide table rather than in each entry, so entries nobody streams cost no
/// memory and a write costs one relaxed atomic load while no stream exists anywhere.
/// Callbacks run on the writing thread, after the write, with no lock held.
enum ChangeSubscriptions {
    private static let lock = Lock()
    // Safe: only accessed while `lock` is held.
    nonisolated(unsafe) private static var callbacks: [ObjectIdentifier: [UInt64: @Sendable () -> Void]] = [:]
    nonisolated(unsafe) private static var nextToken: UInt64 = 0
    private static let count = Atomic<Int>(0)

    /// The number of live subscriptions, across all entries.
    static var subscriberCount: Int { count.load(ordering: .relaxed) }

    /// Registers `callback` to run after each change of `entry`; returns the token that removes it.
    static func subscribe(_ entry: RegistryEntry, _ callback: @escaping @Sendable () -> Void) -> UInt64 {
        lock.withLock {
            nextToken += 1
            callbacks[ObjectIdentifier(entry), default: [:]][nextToken] = callback
            count.add(1, ordering: .relaxed)
            return nextToken
        }
    }

    /// Removes the subscription `token` of `entry`.
    static func unsubscribe(_ entry: RegistryEntry, token: UInt64) {
        lock.withLock {
            let id = ObjectIdentifier(entry)
            guard callbacks[id]?.removeValue(forKey: token) != nil else { return }
            if callbacks[id]?.isEmpty == true { callbacks[id] = nil }
            count.subtract(1, ordering: .relaxed)
        }
    }

    /// Runs the callbacks subscribed to `entry`.
    static func notify(_ entry: RegistryEntry) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        let subscribed = lock.withLock { callbacks[ObjectIdentifier(entry)].map { Array($0.values) } ?? [] }
        for callback in subscribed { callback() }
    }
}
