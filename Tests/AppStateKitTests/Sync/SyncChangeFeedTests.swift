import AppStateKit
import Foundation
import Testing

@Suite("SyncStore change feed: bounded buffering, the deprecated record feed", .isolatedApplication)
struct SyncChangeFeedTests {
    @Test("a consumer that never keeps up: the feed keeps at most its capacity, then one replacement with every key's newest record")
    func slowConsumerGetsReplacement() async throws {
        let store = InMemorySyncStore()
        var feed = store.changeFeed().makeAsyncIterator()
        let writes = 3 * SyncChangeBuffer.defaultCapacity + 5
        for index in 0..<writes {
            _ = try await store.write(Data("\(index)".utf8), forKey: "Slow/k\(index % 40)")
        }
        let newest = Set(try await store.snapshot())
        #expect(newest.count == 40)
        // Every change past the capacity was dropped for one replacement, read when taken.
        let first = await feed.next()
        let replacement = try #require(first?.replacedRecords, "expected a replacement first, got \(String(describing: first))")
        #expect(Set(replacement) == newest)
        let later = try await store.write(Data("\"after\"".utf8), forKey: "Slow/k0")
        #expect(await feed.next() == .changed(later))
        print("change feed: \(writes) writes to a consumer that took none; it then got 1 replacement of \(newest.count) records")
    }

    @Test("the buffer: holds up to its capacity, collapses on overflow, a pushed replacement replaces what waits")
    func bufferBounds() async throws {
        let contents = Locked<[SyncRecord]>([])
        let buffer = SyncChangeBuffer(capacity: 4) { contents.withLock { $0 } }
        let records = (1...4).map { SyncRecord(key: "B/k", value: Data("\($0)".utf8), version: Int64($0)) }
        for record in records { buffer.push(.changed(record)) }
        #expect(buffer.waitingCount == 4 && buffer.overflowCount == 0)
        let stream = buffer.makeStream()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .changed(records[0]))
        for version in 5...1_000 {
            buffer.push(.changed(SyncRecord(key: "B/k", value: nil, version: Int64(version))))
        }
        #expect(buffer.waitingCount == 1)
        #expect(buffer.overflowCount == 1)
        let final = SyncRecord(key: "B/k", value: nil, version: 1_000)
        contents.withLock { $0 = [final] }
        #expect(await iterator.next() == .replaced([final]))
        buffer.push(.changed(records[0]))
        buffer.push(.replaced([]))
        #expect(buffer.waitingCount == 1)
        #expect(await iterator.next() == .replaced([]))
        buffer.push(.changed(final))
        buffer.finish()
        #expect(await iterator.next() == .changed(final))
        #expect(await iterator.next() == nil)
    }

    @Test("a consumer waiting on the buffer returns nil when its task is cancelled, and the store hears of it once")
    func cancelledConsumerEnds() async throws {
        let ends = Locked(0)
        let buffer = SyncChangeBuffer { [] }
        buffer.onEnd { ends.withLock { $0 += 1 } }
        let stream = buffer.makeStream()
        let consumer = Task {
            var received = 0
            for await _ in stream { received += 1 }
            return received
        }
        buffer.push(.changed(SyncRecord(key: "C/k", value: nil, version: 1)))
        consumer.cancel()
        #expect(await consumer.value <= 1)
        #expect(await eventually { ends.withLock { $0 } == 1 })
        buffer.push(.changed(SyncRecord(key: "C/k", value: nil, version: 2)))
        #expect(buffer.waitingCount == 0)
    }

    @Test("the deprecated defaults: changes() flattens a replacement; a store of an earlier release that implements only changes() gets a changeFeed()")
    func deprecatedDefaults() async throws {
        let scenario: any DeprecatedFeedScenario = DeprecatedFeeds()
        let outcome = try await scenario.run()
        #expect(outcome.flattened == ["D/a@1", "D/a@5", "D/b@1"])
        #expect(outcome.legacyChange == .changed(SyncRecord(key: "D/x", value: Data("1".utf8), version: 1)))
    }
}

extension SyncChange {
    fileprivate var replacedRecords: [SyncRecord]? {
        if case let .replaced(records) = self { records } else { nil }
    }
}

/// Calls the deprecated API from a deprecated witness, so the test builds without warnings.
private protocol DeprecatedFeedScenario {
    func run() async throws -> (flattened: [String], legacyChange: SyncChange?)
}

private struct DeprecatedFeeds: DeprecatedFeedScenario {
    @available(*, deprecated, message: "exercises the deprecated changes() feed")
    func run() async throws -> (flattened: [String], legacyChange: SyncChange?) {
        let store = InMemorySyncStore()
        var records = store.changes().makeAsyncIterator()
        _ = try await store.write(Data("1".utf8), forKey: "D/a")
        var flattened = [await records.next()?.description]
        try store.replaceContents(with: [
            SyncRecord(key: "D/a", value: Data("2".utf8), version: 5),
            SyncRecord(key: "D/b", value: Data("3".utf8), version: 1),
        ])
        flattened.append(await records.next()?.description)
        flattened.append(await records.next()?.description)
        let keys = flattened.compactMap { $0?.components(separatedBy: " ").first }

        let legacy = RecordsOnlyStore()
        var changes = legacy.changeFeed().makeAsyncIterator()
        _ = try await legacy.write(Data("1".utf8), forKey: "D/x")
        return (keys.sorted(), await changes.next())
    }
}

/// A store written against an earlier release: it implements `changes()`, not `changeFeed()`.
@available(*, deprecated, message: "a store of an earlier release")
private final class RecordsOnlyStore: SyncStore {
    let inner = InMemorySyncStore()

    func cachedRecord(forKey key: String) throws -> SyncRecord? { try inner.cachedRecord(forKey: key) }
    func fetchRecord(forKey key: String) async throws -> SyncRecord? { try await inner.fetchRecord(forKey: key) }
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord { try await inner.write(value, forKey: key) }
    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try await inner.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }
    func snapshot() async throws -> [SyncRecord] { try await inner.snapshot() }
    func changes() -> AsyncStream<SyncRecord> { inner.changes() }
}
