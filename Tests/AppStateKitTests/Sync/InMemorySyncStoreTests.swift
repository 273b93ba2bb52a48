import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

@Suite("InMemorySyncStore", .isolatedApplication)
struct InMemorySyncStoreTests {
    @Test("versions start at 1 and grow by one per write; removal is a tombstone")
    func versions() async throws {
        let store = InMemorySyncStore()
        #expect(try store.cachedRecord(forKey: "A/x") == nil)
        let first = try await store.write(Data("1".utf8), forKey: "A/x")
        let second = try await store.write(nil, forKey: "A/x")
        #expect(first == SyncRecord(key: "A/x", value: Data("1".utf8), version: 1))
        #expect(second == SyncRecord(key: "A/x", value: nil, version: 2))
        #expect(try await store.fetchRecord(forKey: "A/x") == second)
        #expect(try await store.snapshot() == [second])
    }

    @Test("compare-and-set commits only at the expected version and reports the current record otherwise")
    func compareAndSet() async throws {
        let store = InMemorySyncStore()
        let created = try await store.compareAndSet(Data("1".utf8), forKey: "A/x", expectedVersion: 0)
        #expect(created == .committed(SyncRecord(key: "A/x", value: Data("1".utf8), version: 1)))
        let stale = try await store.compareAndSet(Data("2".utf8), forKey: "A/x", expectedVersion: 0)
        #expect(stale == .conflict(current: SyncRecord(key: "A/x", value: Data("1".utf8), version: 1)))
        let missing = try await store.compareAndSet(Data("2".utf8), forKey: "A/y", expectedVersion: 3)
        #expect(missing == .conflict(current: nil))
    }

    @Test("every feed receives every committed record; a cancelled consumer's feed is removed")
    func feeds() async throws {
        let store = InMemorySyncStore()
        let feed = store.changeFeed()
        let consumer = Task {
            var received: [Int64] = []
            for await case let .changed(record) in feed {
                received.append(record.version)
                if received.count == 3 { break }
            }
            return received
        }
        for value in 1...3 {
            _ = try await store.write(Data("\(value)".utf8), forKey: "A/x")
        }
        #expect(await consumer.value == [1, 2, 3])

        let before = store.feedCount
        let idle = Task { for await _ in store.changeFeed() {} }
        #expect(await eventually { store.feedCount == before + 1 })
        idle.cancel()
        await idle.value
        #expect(await eventually { store.feedCount == before })
    }

    @Test("limits are enforced with SyncStoreError naming the key")
    func limits() async throws {
        let store = InMemorySyncStore()
        let longKey = String(repeating: "k", count: SyncLimits.maxKeyBytes + 1)
        await #expect { _ = try await store.write(Data("1".utf8), forKey: longKey) } throws: {
            ($0 as? SyncStoreError)?.kind == .invalidKey
        }
        await #expect { _ = try await store.write(Data(count: SyncLimits.maxValueBytes + 1), forKey: "A/big") } throws: {
            guard let error = $0 as? SyncStoreError else { return false }
            return error.kind == .valueTooLarge && error.description.hasPrefix("value too large for sync key \"A/big\"")
        }
        #expect(try await store.snapshot().isEmpty)
    }

    @Test("shutDown ends feeds and fails later operations")
    func shutDown() async throws {
        let store = InMemorySyncStore()
        let feed = store.changeFeed()
        store.shutDown()
        for await _ in feed {}
        await #expect { _ = try await store.write(nil, forKey: "A/x") } throws: { ($0 as? SyncStoreError)?.kind == .shutDown }
        #expect(throws: SyncStoreError.self) { try store.cachedRecord(forKey: "A/x") }
    }
}
