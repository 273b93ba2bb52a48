/// A thread-safe, in-memory ``UserDefaultsManaging`` store.
///
/// Isolated applications use one so tests never touch the disk; use it in your own tests or
/// for state that should not outlive the process.
///
/// ```swift
/// Application.promote(\.userDefaults, with: InMemoryDefaults())
/// ```
public final class InMemoryDefaults: UserDefaultsManaging, @unchecked Sendable {
    // Safe: `values` is only accessed while `lock` is held.
    private let lock = Lock()
    private var values: [String: Any]

    /// Creates a store holding `values`.
    public init(_ values: [String: any Sendable] = [:]) {
        self.values = values
    }

    /// The value stored for `key`.
    public func object(forKey key: String) -> Any? {
        lock.withLock { values[key] }
    }

    /// Stores `value` for `key`; `nil` removes it.
    public func set(_ value: Any?, forKey key: String) {
        lock.withLock { values[key] = value }
    }

    /// Removes the value for `key`.
    public func removeObject(forKey key: String) {
        lock.withLock { values[key] = nil }
    }

    /// Every stored key, sorted.
    public var keys: [String] {
        lock.withLock { values.keys.sorted() }
    }
}
