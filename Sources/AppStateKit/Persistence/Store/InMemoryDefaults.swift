/// A thread-safe, in-memory ``UserDefaultsManaging`` store.
///
/// Isolated applications use one so tests never touch the disk; use it in your own tests or
/// for state that should not outlive the process.
///
/// ```swift
/// Application.promote(\.userDefaults, with: InMemoryDefaults())
/// ```
public final class InMemoryDefaults: UserDefaultsManaging, Sendable {
    private let values: LockedBox<[String: Any]>

    /// Creates a store holding `values`.
    public init(_ values: [String: any Sendable] = [:]) {
        self.values = LockedBox(values)
    }

    /// The value stored for `key`.
    public func object(forKey key: String) -> Any? {
        values.withLock { $0[key] }
    }

    /// Stores `value` for `key`; `nil` removes it.
    public func set(_ value: Any?, forKey key: String) {
        values.withLock { $0[key] = value }
    }

    /// Every stored key, sorted.
    public var keys: [String] {
        values.withLock { $0.keys.sorted() }
    }
}
