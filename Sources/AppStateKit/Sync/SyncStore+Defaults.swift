import Foundation

extension SyncStore {
    /// Each record of ``changes()`` as ``SyncChange/changed(_:)``.
    public func changeFeed() -> AsyncStream<SyncChange> {
        let records = changes()
        let (stream, continuation) = AsyncStream.makeStream(of: SyncChange.self, bufferingPolicy: .unbounded)
        let forwarding = Task {
            for await record in records {
                continuation.yield(.changed(record))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }

    /// ``SyncStoreStatus/live(since:)`` at the moment of the call, and nothing else; the stream
    /// ends when the consuming task is cancelled.
    public func statusUpdates() -> AsyncStream<SyncStoreStatus> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            continuation.yield(.live(since: Date()))
        }
    }

    /// Waits until ``statusUpdates()`` delivers a status that ``SyncStoreStatus/isReady``.
    public func waitUntilReady(timeout: Duration) async throws {
        try await SyncReadiness.wait(for: statusUpdates(), timeout: timeout, store: "\(type(of: self))")
    }

    /// The keys of ``snapshot()``'s records that hold a value, sorted.
    public func keys() async throws -> [String] {
        try await snapshot().filter { $0.value != nil }.map(\.key).sorted()
    }

    /// ``write(_:forKey:)`` of `nil`.
    public func delete(forKey key: String) async throws -> SyncRecord {
        try await write(nil, forKey: key)
    }
}
