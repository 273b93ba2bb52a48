import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// Waiting for a ``SyncStore``'s status to become ready, for
/// ``SyncStore/waitUntilReady(timeout:)``.
package enum SyncReadiness {
    /// Returns once `statuses` delivers a status that ``SyncStoreStatus/isReady``.
    ///
    /// - Throws: ``SyncStoreError`` of kind `unavailable` (naming `store` and the last status)
    ///   when none does within `timeout`, `shutDown` when the store stopped or the stream
    ///   ended, `CancellationError` when the calling task is cancelled.
    package static func wait(for statuses: AsyncStream<SyncStoreStatus>, timeout: Duration, store: String) async throws {
        let last = LockedBox<SyncStoreStatus?>(nil)
        let outcome: Outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await status in statuses {
                    last.withLock { $0 = status }
                    if status.isReady { return .ready }
                    if case .stopped = status { return .stopped }
                }
                return .stopped
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return .timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { return .stopped }
            return first
        }
        try Task.checkCancellation()
        let status = last.withLock { $0 }.map { "\($0)" } ?? "no status reported"
        switch outcome {
        case .ready:
            return
        case .stopped:
            throw SyncStoreError(.shutDown, key: "", detail: "the sync store \(store) stopped before it was ready (\(status))")
        case .timedOut:
            throw SyncStoreError(.unavailable, key: "", detail: "the sync store \(store) was not ready within \(timeout); its status: \(status)")
        }
    }

    private enum Outcome: Sendable {
        case ready, stopped, timedOut
    }
}
