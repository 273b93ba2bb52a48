import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// A ``SyncStore`` that can hold off every other writer of a key, in every process, while it
/// commits a new value computed from the current one: an optional capability a store adopts.
///
/// ``Application/SyncState/update(maxAttempts:_:)`` checks for this conformance after losing a
/// compare-and-set, so that under heavy contention an update commits instead of retrying until
/// it gives up. A store that doesn't adopt it is updated by compare-and-set retries alone.
/// `PostgresSyncStore` adopts it (a row lock in one transaction).
///
/// ```swift
/// if let exclusive = store as? any ExclusiveUpdatingSyncStore {
///     let record: SyncRecord = try await exclusive.updateExclusively(forKey: "App/counter") { current in
///         Data("\(count(current) + 1)".utf8)
///     }
/// }
/// ```
public protocol ExclusiveUpdatingSyncStore: SyncStore {
    /// Commits `transform(current record)` for `key` while holding off every other writer of
    /// the key in every process, so the commit cannot lose a race; returns the committed record.
    ///
    /// `transform` receives the current record (`nil`: none) and returns the value to commit
    /// (`nil` removes the key); it may run more than once, and its errors are rethrown unchanged
    /// with nothing committed. The store locks the key for the duration of `transform`.
    ///
    /// - Throws: What `transform` throws, and the errors of ``SyncStore/write(_:forKey:)``.
    func updateExclusively(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord
}

extension ExclusiveUpdatingSyncStore {
    /// The committed record of the `updateExclusively(forKey:_:)` this protocol requires: never
    /// `nil`, so a caller of the deprecated ``SyncStore`` requirement gets the same update.
    @available(*, deprecated, message: "call updateExclusively through ExclusiveUpdatingSyncStore, which returns the committed record")
    public func updateExclusively(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord? {
        let record: SyncRecord = try await updateExclusively(forKey: key, transform)
        return record
    }
}

extension SyncStore {
    /// An exclusive update through whichever way the store offers one: its
    /// ``ExclusiveUpdatingSyncStore`` conformance or, for a store of an earlier release, the
    /// deprecated ``SyncStore/updateExclusively(forKey:_:)``; `nil` when it offers none.
    package func exclusiveUpdate(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord? {
        if let exclusive = self as? any ExclusiveUpdatingSyncStore {
            let record: SyncRecord = try await exclusive.updateExclusively(forKey: key, transform)
            return record
        }
        return try await EarlierReleaseCapabilities.route.updateExclusively(of: self, forKey: key, transform)
    }
}

/// Reaches the deprecated capability requirements of stores written against an earlier release.
private protocol EarlierReleaseCapabilityRoute: Sendable {
    func updateExclusively(of store: any SyncStore, forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord?
}

/// The one place the library calls a deprecated ``SyncStore`` requirement; reached through
/// ``EarlierReleaseCapabilityRoute`` so the call compiles without a deprecation warning.
private struct EarlierReleaseCapabilities: EarlierReleaseCapabilityRoute {
    static let route: any EarlierReleaseCapabilityRoute = EarlierReleaseCapabilities()

    @available(*, deprecated, message: "calls the deprecated requirement for stores of earlier releases")
    func updateExclusively(of store: any SyncStore, forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord? {
        try await store.updateExclusively(forKey: key, transform)
    }
}
