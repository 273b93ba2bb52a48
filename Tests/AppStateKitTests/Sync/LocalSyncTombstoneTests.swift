import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// The embedded store collects tombstones older than its retention when it commits (issue 30,
/// item 8), without letting versions go backwards or making readers take the file as replaced.
/// Time is a clock the test sets; files live in memory.
@Suite("LocalSyncStore tombstone collection", .isolatedApplication, .reportsAsDiagnostics)
struct LocalSyncTombstoneTests {
    let path = "/data/app/sync.json"

    /// A wall clock the test moves by hand.
    final class SetClock: Sendable {
        private let now = Locked(Date(timeIntervalSince1970: 1_000_000))
        var read: @Sendable () -> Date { { [now] in now.withLock { $0 } } }
        func advance(bySeconds seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    func store(_ files: InMemoryFileSystem, _ clock: SetClock, retention: Duration = .seconds(100)) -> LocalSyncStore {
        // Polled once an hour: a reader hears of the file only when the test reads it.
        LocalSyncStore(path: path, changeDetection: .polling(every: .seconds(3600)), tombstoneRetention: retention, fileSystem: files, wallClock: clock.read)
    }

    @Test("a commit collects the tombstones its retention has passed, keeping the sequence: a collected key written again continues above every version")
    func collectsPastRetention() async throws {
        let files = InMemoryFileSystem()
        let clock = SetClock()
        let store = store(files, clock)
        _ = try await store.write(Data("1".utf8), forKey: "App/gone")
        _ = try await store.write(Data("1".utf8), forKey: "App/kept")
        let removed = try await store.delete(forKey: "App/gone")
        #expect(removed.version == 3)
        #expect(files.text(atPath: path)?.contains(#""App/gone" : {"version":3,"value":null,"removedAt":1000000,"crc":"#) == true, "\(files.text(atPath: path) ?? "no file")")

        clock.advance(bySeconds: 99)
        _ = try await store.write(Data("2".utf8), forKey: "App/kept")   // one second short
        #expect(try store.cachedRecord(forKey: "App/gone") == removed)

        clock.advance(bySeconds: 1)
        let kept = try await store.write(Data("3".utf8), forKey: "App/kept")
        #expect(kept.version == 5)
        #expect(try store.cachedRecord(forKey: "App/gone") == nil)
        #expect(try await store.snapshot() == [kept])
        let text = try #require(files.text(atPath: path))
        #expect(!text.contains("App/gone") && text.contains(#""sequence" : 5"#), "\(text)")

        // Compare-and-set from the collected tombstone's version conflicts with "absent"; from
        // 0 it commits, above every version the file held.
        #expect(try await store.compareAndSet(Data("4".utf8), forKey: "App/gone", expectedVersion: removed.version) == .conflict(current: nil))
        let revived = try await store.compareAndSet(Data("4".utf8), forKey: "App/gone", expectedVersion: 0)
        #expect(revived == .committed(SyncRecord(key: "App/gone", value: Data("4".utf8), version: 6)))
        // A fresh process reads the same.
        #expect(try await self.store(files, clock).snapshot().map(\.version) == [6, 5])
    }

    @Test("the key being removed is never collected by its own commit, and a zero retention collects every older tombstone at the next commit")
    func zeroRetention() async throws {
        let files = InMemoryFileSystem()
        let clock = SetClock()
        let store = store(files, clock, retention: .zero)
        _ = try await store.delete(forKey: "App/a")
        #expect(try store.cachedRecord(forKey: "App/a")?.value == nil)
        #expect(try store.cachedRecord(forKey: "App/a") != nil)
        let b = try await store.delete(forKey: "App/b")
        #expect(try await store.snapshot() == [b])
    }

    @Test("a tombstone without a time (an older file) gets the time of the first commit that finds it and goes a retention later")
    func untimedTombstone() async throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: path, text: #"""
            {
              "format" : 1,
              "epoch" : "E",
              "sequence" : 7,
              "records" : {
                "App/old" : {"version":7,"value":null}
              }
            }
            """#)
        let clock = SetClock()
        let store = store(files, clock)
        _ = try await store.write(Data("1".utf8), forKey: "App/other")
        #expect(files.text(atPath: path)?.contains(#""App/old" : {"version":7,"value":null,"removedAt":1000000,"crc":"#) == true, "\(files.text(atPath: path) ?? "no file")")
        clock.advance(bySeconds: 100)
        let other = try await store.write(Data("2".utf8), forKey: "App/other")
        #expect(try await store.snapshot() == [other])
        #expect(other.version == 9)
    }

    @Test("a reader that saw the removal hears nothing more of the collection; one that missed both hears a removal; neither takes the file as replaced")
    func readersOfACollection() async throws {
        let files = InMemoryFileSystem()
        let clock = SetClock()
        let writer = store(files, clock)
        let sawRemoval = store(files, clock)
        let missedRemoval = store(files, clock)
        _ = try await writer.write(Data("1".utf8), forKey: "App/gone")
        _ = try await writer.write(Data("1".utf8), forKey: "App/kept")
        var saw = sawRemoval.changeFeed().makeAsyncIterator()
        var missed = missedRemoval.changeFeed().makeAsyncIterator()

        let removed = try await writer.delete(forKey: "App/gone")
        #expect(try sawRemoval.cachedRecord(forKey: "App/gone") == removed)
        #expect(await saw.next() == .changed(removed))

        clock.advance(bySeconds: 100)
        let kept = try await writer.write(Data("2".utf8), forKey: "App/kept")
        #expect(try sawRemoval.cachedRecord(forKey: "App/gone") == nil)
        #expect(await saw.next() == .changed(kept))
        #expect(try missedRemoval.cachedRecord(forKey: "App/gone") == nil)
        let heard = [await missed.next(), await missed.next()]
        #expect(heard.contains(.changed(kept)))
        #expect(heard.contains(.changed(SyncRecord(key: "App/gone", value: nil, version: kept.version))), "\(heard)")

        // Nothing else is pending on either feed: the next thing each hears is the next write.
        let next = try await writer.write(Data("3".utf8), forKey: "App/kept")
        _ = try sawRemoval.cachedRecord(forKey: "App/kept")
        _ = try missedRemoval.cachedRecord(forKey: "App/kept")
        #expect(await saw.next() == .changed(next))
        #expect(await missed.next() == .changed(next))
    }
}
