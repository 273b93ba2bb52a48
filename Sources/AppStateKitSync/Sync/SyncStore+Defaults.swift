import AppStateKitCore
import AppStateKitPersistence
import Foundation

extension SyncStore {
    /// Each record of ``changes()`` as ``SyncChange/changed(_:)``, for a store written against
    /// an earlier release. Pulled one at a time, so what waits for a slow consumer is what the
    /// store's ``changes()`` buffers.
    ///
    /// A store must implement ``changeFeed()`` or ``changes()``: with neither, each default
    /// calls the other and the first call never returns (the compiler warns that this
    /// deprecated default is used).
    @available(*, deprecated, message: "implement changeFeed(): the library follows stores through it")
    public func changeFeed() -> AsyncStream<SyncChange> {
        let records = SyncFeedPull(changes())
        return AsyncStream(unfolding: { await records.next().map(SyncChange.changed) })
    }

    /// Each ``SyncChange/changed(_:)`` of ``changeFeed()`` as its record, and each record of a
    /// ``SyncChange/replaced(_:)`` one by one. Pulled one change at a time, so what waits for a
    /// slow consumer is what ``changeFeed()`` buffers (bounded, for the stores AppStateKit
    /// ships).
    @available(*, deprecated, message: "follow the store with changeFeed(), which also says when the store's data was replaced")
    public func changes() -> AsyncStream<SyncRecord> {
        SyncChange.records(of: changeFeed())
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

/// Pulls a feed one element at a time for a stream of another element type: what the
/// deprecated ``SyncStore/changes()`` and ``SyncStore/changeFeed()`` defaults derive each other
/// with, so nothing is buffered between the two.
actor SyncFeedPull<Element: Sendable> {
    private let iterator: AsyncStream<Element>.Iterator

    init(_ stream: AsyncStream<Element>) {
        iterator = stream.makeAsyncIterator()
    }

    /// The feed's next element, or `nil` once it ended. An `AsyncStream` iterator's copies share
    /// its state, so calls that overlap are overlapping `next()` calls on the stream.
    func next() async -> Element? {
        var current = iterator
        return await current.next(isolation: self)
    }
}

extension SyncChange {
    /// The records of `feed`: each ``changed(_:)`` record, and each record of a
    /// ``replaced(_:)`` one by one, pulled one change at a time (nothing buffered in between).
    package static func records(of feed: AsyncStream<SyncChange>) -> AsyncStream<SyncRecord> {
        let flattened = SyncRecordsOfChanges(SyncFeedPull(feed))
        return AsyncStream(unfolding: { await flattened.next() })
    }
}

/// The records of a change feed: each changed record, and each record of a replacement.
actor SyncRecordsOfChanges {
    private let changes: SyncFeedPull<SyncChange>
    private var pending: [SyncRecord] = []

    init(_ changes: SyncFeedPull<SyncChange>) {
        self.changes = changes
    }

    func next() async -> SyncRecord? {
        while pending.isEmpty {
            switch await changes.next() {
            case nil: return nil
            case let .changed(record)?: return record
            case let .replaced(records)?: pending = records.reversed()
            }
        }
        return pending.removeLast()
    }
}
