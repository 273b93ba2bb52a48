import AppStateKitCore
import Foundation

/// A key-value store that ``Application/StoredState`` reads and writes through.
///
/// The small subset of `UserDefaults` that stored state needs: ``UserDefaultsStore`` adapts
/// `UserDefaults`, ``InMemoryDefaults`` keeps values in memory, and a fake of your own needs
/// two methods (``removeObject(forKey:)`` defaults to `set(nil, forKey:)`). Values passed to
/// ``set(_:forKey:)`` are property-list values (`Bool`, `Int`, `Double`, `Float`, `String`,
/// `Data`, `Date`, `URL` and arrays or dictionaries of them).
public protocol UserDefaultsManaging: Sendable {
    /// Returns the value stored for `key`, or `nil` when there is none.
    func object(forKey key: String) -> Any?
    /// Removes the value stored for `key`.
    func removeObject(forKey key: String)
    /// Stores `value` for `key`; `nil` removes the key.
    func set(_ value: Any?, forKey key: String)

    /// Reads the value for `key`, throwing when the store cannot be read. Stores that can fail
    /// (like ``FileKeyValueStore``) implement it so ``Application/StoredState/read()`` surfaces
    /// their errors; the default calls ``object(forKey:)``.
    func readObject(forKey key: String) throws -> Any?

    /// Writes (or, for `nil`, removes) the value for `key`, throwing when it cannot be stored;
    /// the default calls ``set(_:forKey:)``.
    func writeObject(_ value: Any?, forKey key: String) throws
}

extension UserDefaultsManaging {
    /// Calls ``set(_:forKey:)`` with `nil`.
    public func removeObject(forKey key: String) {
        set(nil, forKey: key)
    }

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
