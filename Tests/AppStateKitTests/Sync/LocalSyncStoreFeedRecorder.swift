import AppStateKit
import Foundation

/// Collects what a ``SyncStore/changes()`` feed delivers, on a task of its own, so a test can
/// wait (bounded) for the records it expects.
final class FeedRecorder: Sendable {
    private let received = Locked<[SyncRecord]>([])
    private let task: Task<Void, Never>

    init(_ feed: AsyncStream<SyncRecord>) {
        let received = received
        task = Task {
            for await record in feed {
                received.withLock { $0.append(record) }
            }
        }
    }

    /// Everything delivered so far.
    var records: [SyncRecord] { received.withLock { $0 } }

    /// Waits until `isEnough` holds for what was delivered, at most `timeout` (a safety net, not
    /// a measurement); returns what was delivered.
    @discardableResult
    func wait(timeout: Duration = hangLimit, until isEnough: ([SyncRecord]) -> Bool) async -> [SyncRecord] {
        let deadline = ContinuousClock.now + timeout
        while !isEnough(records), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return records
    }

    /// Ends the feed by cancelling its consumer, and waits for the consumer to finish.
    func cancel() async {
        task.cancel()
        await task.value
    }
}
