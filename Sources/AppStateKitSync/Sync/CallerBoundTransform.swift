import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// Lends ``SyncStore/updateExclusively(forKey:_:)`` a transform for the duration of one call.
///
/// The store takes an escaping, `@Sendable` closure because it may run it on a task of its own
/// (the PostgreSQL store runs each operation under a deadline in a separate task);
/// `SyncState.update`'s body is neither escaping nor `Sendable`. This box holds the body only
/// while its caller is suspended awaiting the store: ``revoke()``, which the caller runs before
/// it returns, drops the body after any call in progress, so a store task that outlives its
/// deadline can never run the body afterwards (it gets `CancellationError` instead).
// @unchecked: it carries a closure that is not @Sendable to the store's task; the closure is only called with the box's lock held while its caller is suspended, and dropped before the caller returns.
final class CallerBoundTransform: @unchecked Sendable {
    /// Read, called and cleared only with the box's lock held, so calls never overlap and none
    /// starts after `revoke()`; its caller stays suspended while a call runs.
    private let transform: LockedBox<((SyncRecord?) throws -> Data?)?>

    /// Lends `transform` until ``revoke()``.
    init(_ transform: @escaping (SyncRecord?) throws -> Data?) {
        self.transform = LockedBox(transform)
    }

    /// Runs the lent transform on `record`, with this box's own lock held (no other lock is
    /// involved, and only ``revoke()`` waits for it).
    ///
    /// - Throws: What the transform throws, or `CancellationError` once revoked.
    func callAsFunction(_ record: SyncRecord?) throws -> Data? {
        // The one box whose lock is held around user code, on purpose: see the type's comment.
        try transform.withLock { transform in
            guard let transform else { throw CancellationError() }
            return try transform(record)
        }
    }

    /// Ends the loan: waits for a call in progress, then drops the transform (released after
    /// the lock, so whatever it captured is not freed with the lock held).
    func revoke() {
        let lent = transform.withLock { transform in
            defer { transform = nil }
            return transform
        }
        _ = lent
    }
}
