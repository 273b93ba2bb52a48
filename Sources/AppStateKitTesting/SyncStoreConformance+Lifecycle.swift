public import AppStateKit
import Foundation

extension SyncStoreConformance {
    /// What ``init(store:timeout:replaceBackingStore:)`` calls to replace the backing store's
    /// data behind the store's back, as a restore from a backup does: afterwards the backing
    /// store must hold exactly `records` (with their versions as given) among the keys that start
    /// with `keyPrefix`, and nothing else under that prefix. Keys outside the prefix belong to
    /// others and may be left as they are.
    ///
    /// For the embedded store: write a new file (a new `epoch`) holding the records. For a
    /// database: delete the prefix's rows and insert the records, as another role would.
    public typealias ReplaceBackingStore = @Sendable (_ keyPrefix: String, _ records: [SyncRecord]) async throws -> Void

    func changeFeedDeliversOwnWrites(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("change-feed")
        let feed = store.changeFeed()
        let first = try await store.write(Self.json("a"), forKey: key)
        let last = try await store.write(nil, forKey: key)
        let delivered = await Self.race(timeout: timeout) { () -> [SyncRecord] in
            var records: [SyncRecord] = []
            for await change in feed {
                switch change {
                case let .changed(record) where record.key == key: records.append(record)
                case let .replaced(all): records += all.filter { $0.key == key }
                default: continue
                }
                if records.last?.version ?? 0 >= last.version { break }
            }
            return records
        } ?? []
        recorder.expect(delivered.last == last, "changeFeed() taken before committing \(Self.describe(first)) and \(Self.describe(last)) delivered \(delivered.map { Self.describe($0) }) within \(timeout); expected it to end with \(Self.describe(last))")
    }

    func keysAndDeletion(_ recorder: inout CheckRecorder) async throws {
        let kept = key("keys-kept")
        let deleted = key("keys-deleted")
        _ = try await store.write(Self.json("kept"), forKey: kept)
        let before = try await store.write(Self.json("deleted"), forKey: deleted)
        let removal = try await store.delete(forKey: deleted)
        recorder.expect(removal.key == deleted && removal.value == nil && removal.version > before.version, "delete(forKey:) of \(Self.describe(before)) returned \(Self.describe(removal)); expected a removal with a greater version")
        let fetched = try await store.fetchRecord(forKey: deleted)
        recorder.expect(fetched == nil || fetched?.value == nil, "after delete(forKey:), fetchRecord returned \(Self.describe(fetched)); expected no value")
        let listed = try await store.keys().filter { $0.hasPrefix(keyPrefix + "keys-") }
        recorder.expect(listed == [kept], "keys() lists \(listed) among the suite's keys; expected exactly [\(kept)] (a deleted key is not listed)")
        let again = try await store.write(Self.json("again"), forKey: deleted)
        recorder.expect(again.version > removal.version, "writing a deleted key again committed \(Self.describe(again)); expected a version above the removal's \(removal.version)")
    }

    func readiness(_ recorder: inout CheckRecorder) async throws {
        do {
            try await store.waitUntilReady(timeout: timeout)
        } catch {
            recorder.fail("waitUntilReady(timeout: \(timeout)) threw \(error) for a store that serves reads and writes")
        }
        let first = await Self.race(timeout: timeout) { () -> SyncStoreStatus? in
            for await status in store.statusUpdates() { return status }
            return nil
        } ?? nil
        recorder.expect(first?.isReady == true, "the first status statusUpdates() delivered was \(first.map { "\($0)" } ?? "none"); expected a ready one")
    }

    func replacementsAreAuthoritative(_ recorder: inout CheckRecorder) async throws {
        guard let replaceBackingStore else {
            recorder.fail("needs replaceBackingStore: pass one to SyncStoreConformance(store:timeout:replaceBackingStore:)")
            return
        }
        let restored = key("replace-restored")
        let gone = key("replace-gone")
        for index in 0..<3 {
            _ = try await store.write(Self.json("newer-\(index)"), forKey: restored)
        }
        _ = try await store.write(Self.json("gone"), forKey: gone)
        let feed = store.changeFeed()
        let backup = SyncRecord(key: restored, value: Self.json("restored"), version: 1)
        try await replaceBackingStore(keyPrefix + "replace-", [backup])
        let replacement = await Self.race(timeout: timeout) { () -> [SyncRecord]? in
            for await change in feed {
                if case let .replaced(all) = change {
                    let ours = all.filter { $0.key.hasPrefix(keyPrefix + "replace-") }
                    if !ours.contains(where: { $0.key == gone }) { return ours }
                }
            }
            return nil
        } ?? nil
        guard let replacement else {
            recorder.fail("after the backing store was replaced with \(Self.describe(backup)), changeFeed() delivered no replacement without \"\(gone)\" within \(timeout)")
            return
        }
        recorder.expect(replacement == [backup], "the replacement held \(replacement.map { Self.describe($0) }) of the suite's keys; expected exactly \(Self.describe(backup))")
        let cachedRestored = try store.cachedRecord(forKey: restored)
        let cachedGone = try store.cachedRecord(forKey: gone)
        recorder.expect(cachedRestored == backup, "after the replacement, cachedRecord(\"\(restored)\") is \(Self.describe(cachedRestored)); expected the lower-versioned \(Self.describe(backup))")
        recorder.expect(cachedGone == nil || cachedGone?.value == nil, "after a replacement without it, cachedRecord(\"\(gone)\") is \(Self.describe(cachedGone)); expected none")
        let next = try await store.write(Self.json("after"), forKey: restored)
        recorder.expect(next.version > backup.version, "a write after the replacement committed \(Self.describe(next)); expected a version above the restored \(backup.version)")
    }
}
