#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation
import PostgresNIO

extension PostgresSyncStore: ExclusiveUpdatingSyncStore {
    /// How often an exclusive update tries again when the key's row appears or disappears
    /// between its locking read and its write (only rows being created or deleted do that).
    static let exclusiveUpdateInsertAttempts = 8

    /// Runs `transform` on `key`'s row with the row locked (`SELECT … FOR UPDATE`) and commits
    /// its result in the same transaction, with the notification; returns the committed record.
    ///
    /// Other writers of the key wait for the lock, and a `compareAndSet` that read the row
    /// before it then finds a newer version: this update cannot lose. When the key has no row
    /// yet there is nothing to lock; the first write is then an insert, and if another
    /// instance's insert commits first, `transform` runs again on that row, now locked.
    ///
    /// - Throws: What `transform` throws, unchanged (nothing is committed), and the errors of
    ///   ``write(_:forKey:)``.
    public func updateExclusively(forKey key: String, _ transform: @escaping @Sendable (SyncRecord?) throws -> Data?) async throws -> SyncRecord {
        try SyncLimits.check(key: key, value: nil)
        let transformFailure = LockedBox<(any Error)?>(nil)
        let committed: StampedRecord?
        do {
            committed = try await performWrite("exclusive update", key: key) { [self] in
                try await transaction(on: nil) { connection -> StampedRecord? in
                    for _ in 0..<Self.exclusiveUpdateInsertAttempts {
                        let current = try await self.selectRecord(key: key, on: connection, lockingRow: true)?.record
                        let value: Data?
                        let text: String?
                        do {
                            value = try transform(current)
                            text = try Self.checkedText(value, key: key)
                        } catch {
                            transformFailure.withLock { $0 = error }
                            throw error
                        }
                        let query = current.map { self.updateIfVersionQuery(key: key, value: text, expectedVersion: $0.version) }
                            ?? self.insertIfAbsentQuery(key: key, value: text)
                        if let written = try await self.writtenVersion(of: query, on: connection) {
                            return StampedRecord(SyncRecord(key: key, value: value, version: written.version), stamp: written.stamp)
                        }
                        // Only an insert can miss: another instance created the row meanwhile.
                    }
                    return nil
                }
            }
        } catch {
            if let failure = transformFailure.withLock({ $0 }) { throw failure }
            throw error
        }
        guard let record = committed else {
            throw SyncStoreError(.contention, key: key, detail: "the row of table \(tableDescription) was created or deleted by others \(Self.exclusiveUpdateInsertAttempts) times while an exclusive update tried to lock it")
        }
        metrics.countWrite(.committed)
        cache.apply([record])
        return record.record
    }
}
#endif
