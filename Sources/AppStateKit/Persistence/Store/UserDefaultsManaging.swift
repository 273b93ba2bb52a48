import Foundation

/// A key-value store that ``Application/StoredState`` reads and writes through.
///
/// The protocol is deliberately the small subset of `UserDefaults` that stored state needs, so
/// `UserDefaults` itself conforms and tests can supply an in-memory fake in a few lines:
///
/// ```swift
/// final class MemoryDefaults: UserDefaultsManaging, @unchecked Sendable {
///     // Safe: every access to `values` holds `lock`.
///     private let lock = NSLock()
///     private var values: [String: Any] = [:]
///     func object(forKey key: String) -> Any? { lock.withLock { values[key] } }
///     func set(_ value: Any?, forKey key: String) { lock.withLock { values[key] = value } }
///     func removeObject(forKey key: String) { lock.withLock { values[key] = nil } }
/// }
/// ```
///
/// Values passed to ``set(_:forKey:)`` are property-list values (`Bool`, `Int`, `Double`,
/// `Float`, `String`, `Data`, `Date`, `URL` and arrays or dictionaries of them).
public protocol UserDefaultsManaging: Sendable {
    /// Returns the value stored for `key`, or `nil` when there is none.
    func object(forKey key: String) -> Any?
    /// Removes the value stored for `key`.
    func removeObject(forKey key: String)
    /// Stores `value` for `key`; `nil` removes the key.
    func set(_ value: Any?, forKey key: String)
}
