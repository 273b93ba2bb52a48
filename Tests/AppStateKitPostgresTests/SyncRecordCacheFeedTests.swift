#if PostgreSQL
import AppStateKit
@testable import AppStateKitPostgres
import AppStateKitTesting
import Foundation
import Testing

/// The PostgreSQL store's change feed, without a server: the cache it reads from takes commits
/// and authoritative reads directly.
@Suite("PostgreSQL change feed buffering", .isolatedApplication)
struct SyncRecordCacheFeedTests {
    @Test("a consumer that takes nothing while 3,000 commits arrive gets one replacement with the cache's records, then changes again")
    func slowConsumerGetsReplacement() async throws {
        let cache = SyncRecordCache()
        var feed = cache.makeChangeFeed().makeAsyncIterator()
        let commits = 3_000
        for index in 1...commits {
            cache.apply([StampedRecord(SyncRecord(key: "k\(index % 25)", value: Data("\(index)".utf8), version: Int64(index)), stamp: nil)])
        }
        let first = await feed.next()
        guard case let .replaced(records)? = first else {
            Issue.record("expected a replacement first, got \(String(describing: first))")
            return
        }
        #expect(Set(records) == Set(cache.allRecords()))
        #expect(records.count == 25)
        let later = SyncRecord(key: "k0", value: Data("\"after\"".utf8), version: Int64(commits + 1))
        cache.apply([StampedRecord(later, stamp: nil)])
        #expect(await feed.next() == .changed(later))
        cache.finishFeeds()
        #expect(await feed.next() == nil)
    }
}
#endif
