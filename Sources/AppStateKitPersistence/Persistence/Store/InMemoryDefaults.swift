import AppStateKitCore
/// A thread-safe, in-memory ``UserDefaultsManaging`` store.
///
/// Isolated applications use one so tests never touch the disk; use it in your own tests or
/// for state that should not outlive the process.
///
/// ```swift
/// Application.promote(\.userDefaults, with: InMemoryDefaults())
/// ```
public final class InMemoryDefaults: UserDefaultsManaging, Sendable {
    /// A stored object, as `UserDefaultsManaging` types it.
    // @unchecked: the protocol (AppState's) types objects `Any`; they are property-list values
    // (strings, numbers, dates, data, arrays and dictionaries of them), values that are Sendable.
    private struct Stored: @unchecked Sendable {
        let object: Any
    }

    private let values: LockedBox<[String: Stored]>

    /// Creates a store holding `values`.
    public init(_ values: [String: any Sendable] = [:]) {
        self.values = LockedBox(values.mapValues { Stored(object: $0) })
    }

    /// The value stored for `key`.
    public func object(forKey key: String) -> Any? {
        values.withLock { $0[key]?.object }
    }

    /// Stores `value` for `key`; `nil` removes it.
    public func set(_ value: Any?, forKey key: String) {
        values.withLock { $0[key] = value.map { Stored(object: $0) } }
    }

    /// Every stored key, sorted.
    public var keys: [String] {
        values.withLock { $0.keys.sorted() }
    }
}
