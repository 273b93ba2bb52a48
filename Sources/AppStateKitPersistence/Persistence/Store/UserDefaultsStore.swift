import AppStateKitCore
import Foundation

/// Makes any `UserDefaults` instance — `.standard` or a suite — usable as a store.
///
/// On Linux `UserDefaults` is not `Sendable`; this wrapper vouches for it (Foundation documents
/// it as thread-safe), and follows writes with `synchronize()`, without which
/// swift-corelibs-foundation never flushes them to disk.
///
/// ```swift
/// let suite = UserDefaultsStore(UserDefaults(suiteName: "com.example.shared")!)
/// Application.promote(\.userDefaults, with: suite)
/// ```
public struct UserDefaultsStore: UserDefaultsManaging, @unchecked Sendable {
    // Safe: UserDefaults is documented as thread-safe; the reference is immutable.

    /// The wrapped defaults (package-visible: AppStateKitConfiguration lists their keys).
    package let defaults: UserDefaults
    let synchronizesWrites: Bool

    /// Wraps `defaults`.
    public init(_ defaults: UserDefaults, synchronizesWrites: Bool = true) {
        self.defaults = defaults
        self.synchronizesWrites = synchronizesWrites
    }

    /// The value stored for `key`.
    public func object(forKey key: String) -> Any? {
        defaults.object(forKey: key)
    }

    /// Stores `value` for `key`; `nil` removes it.
    public func set(_ value: Any?, forKey key: String) {
        defaults.set(value, forKey: key)
        if synchronizesWrites { defaults.synchronize() }
    }
}
