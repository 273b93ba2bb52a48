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

    /// Reads the value for `key`, throwing when the store cannot be read.
    ///
    /// The default implementation calls ``object(forKey:)`` and never throws; stores that can
    /// fail (like ``FileKeyValueStore``) override it so ``Application/StoredState/read()``
    /// surfaces their errors.
    func readObject(forKey key: String) throws -> Any?

    /// Writes (or, for `nil`, removes) the value for `key`, throwing when it cannot be stored.
    ///
    /// The default implementation calls ``set(_:forKey:)`` and never throws.
    func writeObject(_ value: Any?, forKey key: String) throws
}

extension UserDefaultsManaging {
    /// Calls ``object(forKey:)``.
    public func readObject(forKey key: String) throws -> Any? {
        object(forKey: key)
    }

    /// Calls ``set(_:forKey:)``, or ``removeObject(forKey:)`` for `nil`.
    public func writeObject(_ value: Any?, forKey key: String) throws {
        if let value {
            set(value, forKey: key)
        } else {
            removeObject(forKey: key)
        }
    }
}
