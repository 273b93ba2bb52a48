import AppStateKit
import Foundation

extension SyncStoreConformance {
    func versionsIncrease(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("versions")
        let absent = try await store.fetchRecord(forKey: key)
        recorder.expect(absent == nil, "fetchRecord of key \"\(key)\", never written, returned \(Self.describe(absent))")
        let cachedAbsent = try store.cachedRecord(forKey: key)
        recorder.expect(cachedAbsent == nil, "cachedRecord of key \"\(key)\", never written, returned \(Self.describe(cachedAbsent))")
        var versions: [Int64] = []
        for index in 0..<3 {
            versions.append(try await store.write(Self.json("v\(index)"), forKey: key).version)
        }
        recorder.expect(versions[0] >= 1, "the first write of key \"\(key)\" got version \(versions[0]); versions of existing records are at least 1")
        recorder.expect(versions[1] > versions[0] && versions[2] > versions[1], "three writes of key \"\(key)\" got versions \(versions); each must be greater than the one before")
        let fetched = try await store.fetchRecord(forKey: key)
        recorder.expect(fetched?.version == versions[2], "after writes with versions \(versions), fetchRecord of key \"\(key)\" returned \(Self.describe(fetched))")
    }

    func writeReturnsCommittedRecord(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("write-returns")
        let value = Self.json("committed")
        let record = try await store.write(value, forKey: key)
        recorder.expect(record.key == key && record.value == value, "write(\"committed\", forKey: \"\(key)\") returned \(Self.describe(record))")
        let fetched = try await store.fetchRecord(forKey: key)
        recorder.expect(fetched == record, "write of key \"\(key)\" returned \(Self.describe(record)), fetchRecord then returned \(Self.describe(fetched))")
    }

    func cachedRecordReflectsOwnWrites(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("cached")
        let written = try await store.write(Self.json("written"), forKey: key)
        var cached = try store.cachedRecord(forKey: key)
        recorder.expect(cached == written, "write of key \"\(key)\" committed \(Self.describe(written)), cachedRecord then returned \(Self.describe(cached))")
        let commit = try await store.compareAndSet(Self.json("swapped"), forKey: key, expectedVersion: written.version)
        if case let .committed(swapped) = commit {
            cached = try store.cachedRecord(forKey: key)
            recorder.expect(cached == swapped, "compareAndSet of key \"\(key)\" committed \(Self.describe(swapped)), cachedRecord then returned \(Self.describe(cached))")
        } else {
            recorder.fail("compareAndSet of key \"\(key)\" expecting the current version \(written.version): \(Self.describe(commit))")
        }
        let removed = try await store.write(nil, forKey: key)
        cached = try store.cachedRecord(forKey: key)
        recorder.expect(cached == removed, "removal of key \"\(key)\" committed \(Self.describe(removed)), cachedRecord then returned \(Self.describe(cached))")
    }

    func compareAndSetCommits(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("cas-commits")
        let first = try await store.write(Self.json("first"), forKey: key)
        let commit = try await store.compareAndSet(Self.json("second"), forKey: key, expectedVersion: first.version)
        guard case let .committed(second) = commit else {
            recorder.fail("compareAndSet of key \"\(key)\" expecting its current version \(first.version): \(Self.describe(commit))")
            return
        }
        recorder.expect(second.key == key && second.value == Self.json("second") && second.version > first.version, "compareAndSet of key \"\(key)\" at \(Self.describe(first)) committed \(Self.describe(second))")
        let fetched = try await store.fetchRecord(forKey: key)
        recorder.expect(fetched == second, "compareAndSet of key \"\(key)\" committed \(Self.describe(second)), fetchRecord then returned \(Self.describe(fetched))")
    }

    func compareAndSetConflicts(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("cas-conflicts")
        let first = try await store.write(Self.json("first"), forKey: key)
        let current = try await store.write(Self.json("current"), forKey: key)
        for expected in [first.version, current.version + 1, 0] {
            let commit = try await store.compareAndSet(Self.json("lost"), forKey: key, expectedVersion: expected)
            recorder.expect(commit == .conflict(current: current), "compareAndSet of key \"\(key)\" at \(Self.describe(current)) expecting version \(expected): \(Self.describe(commit)), expected a conflict with the current record")
        }
        let fetched = try await store.fetchRecord(forKey: key)
        recorder.expect(fetched == current, "after conflicting compareAndSets, key \"\(key)\" holds \(Self.describe(fetched)), expected \(Self.describe(current))")
    }

    func compareAndSetOnAbsentKey(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("cas-absent")
        let future = try await store.compareAndSet(Self.json("too early"), forKey: key, expectedVersion: 3)
        recorder.expect(future == .conflict(current: nil), "compareAndSet of key \"\(key)\", never written, expecting version 3: \(Self.describe(future)), expected a conflict with no record")
        let commit = try await store.compareAndSet(Self.json("created"), forKey: key, expectedVersion: 0)
        guard case let .committed(created) = commit else {
            recorder.fail("compareAndSet of key \"\(key)\", never written, expecting version 0: \(Self.describe(commit))")
            return
        }
        recorder.expect(created.version >= 1 && created.value == Self.json("created"), "compareAndSet creating key \"\(key)\" committed \(Self.describe(created))")
        let again = try await store.compareAndSet(Self.json("again"), forKey: key, expectedVersion: 0)
        recorder.expect(again == .conflict(current: created), "a second compareAndSet of key \"\(key)\" expecting version 0: \(Self.describe(again)), expected a conflict with \(Self.describe(created))")
    }

    func tombstones(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("tombstone")
        let written = try await store.write(Self.json("alive"), forKey: key)
        let removed = try await store.write(nil, forKey: key)
        recorder.expect(removed.key == key && removed.value == nil && removed.version > written.version, "removing key \"\(key)\" at \(Self.describe(written)) committed \(Self.describe(removed)), expected a tombstone with a greater version")
        let fetched = try await store.fetchRecord(forKey: key)
        recorder.expect(fetched == removed, "after removing key \"\(key)\", fetchRecord returned \(Self.describe(fetched)), expected the tombstone \(Self.describe(removed))")
        let fromZero = try await store.compareAndSet(Self.json("as if new"), forKey: key, expectedVersion: 0)
        recorder.expect(fromZero == .conflict(current: removed), "compareAndSet of removed key \"\(key)\" expecting version 0: \(Self.describe(fromZero)), expected a conflict with the tombstone")
        let revive = try await store.compareAndSet(Self.json("revived"), forKey: key, expectedVersion: removed.version)
        guard case let .committed(revived) = revive else {
            recorder.fail("compareAndSet of removed key \"\(key)\" expecting the tombstone's version \(removed.version): \(Self.describe(revive))")
            return
        }
        recorder.expect(revived.version > removed.version && revived.value == Self.json("revived"), "reviving key \"\(key)\" from \(Self.describe(removed)) committed \(Self.describe(revived))")
        let removal = try await store.compareAndSet(nil, forKey: key, expectedVersion: revived.version)
        guard case let .committed(tombstone) = removal else {
            recorder.fail("compareAndSet(nil) of key \"\(key)\" at its current version \(revived.version): \(Self.describe(removal))")
            return
        }
        recorder.expect(tombstone.value == nil && tombstone.version > revived.version, "compareAndSet(nil) of key \"\(key)\" at \(Self.describe(revived)) committed \(Self.describe(tombstone))")
    }

    func snapshotHoldsEveryRecord(_ recorder: inout CheckRecorder) async throws {
        let keys = ["snapshot-a", "snapshot-b", "snapshot-c"].map(key)
        var expected: [String: SyncRecord] = [:]
        for key in keys {
            expected[key] = try await store.write(Self.json(key), forKey: key)
        }
        expected[keys[0]] = try await store.write(Self.json("newer"), forKey: keys[0])
        expected[keys[1]] = try await store.write(nil, forKey: keys[1])
        let snapshot = try await store.snapshot().filter { $0.key.hasPrefix(keyPrefix + "snapshot-") }
        let byKey = Dictionary(snapshot.map { ($0.key, [$0]) }, uniquingKeysWith: +)
        for key in keys {
            let found = byKey[key] ?? []
            recorder.expect(found == [expected[key]!], "snapshot holds \(found.isEmpty ? "no record" : found.map { Self.describe($0) }.joined(separator: ", ")) for key \"\(key)\", expected exactly \(Self.describe(expected[key]))")
        }
    }

    func changesDeliverOwnWrites(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("feed")
        let feed = SyncChange.records(of: store.changeFeed())
        var committed: [SyncRecord] = []
        for index in 0..<3 {
            committed.append(try await store.write(Self.json("v\(index)"), forKey: key))
        }
        let last = try await store.write(nil, forKey: key)
        committed.append(last)
        let delivered = await collect(from: feed, key: key, until: last.version)
        recorder.expect(delivered.last == last, "a feed taken before writes committing \(committed.map { Self.describe($0) }) delivered \(delivered.map { Self.describe($0) }) for the key within \(timeout); expected it to end with \(Self.describe(last))")
        for record in delivered where !committed.contains(record) {
            recorder.fail("a feed delivered \(Self.describe(record)), which was never committed (committed: \(committed.map { Self.describe($0) }))")
        }
    }

    func changesFeedsAreIndependent(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("feeds")
        let first = SyncChange.records(of: store.changeFeed())
        let second = SyncChange.records(of: store.changeFeed())
        let record = try await store.write(Self.json("both"), forKey: key)
        let seenByFirst = await collect(from: first, key: key, until: record.version)
        let seenBySecond = await collect(from: second, key: key, until: record.version)
        recorder.expect(seenByFirst.last == record && seenBySecond.last == record, "two feeds taken before \(Self.describe(record)) was committed delivered \(seenByFirst.map { Self.describe($0) }) and \(seenBySecond.map { Self.describe($0) })")
        // The first feed's consumer ends; the second still delivers.
        let ended = Task { for await _ in first {} }
        ended.cancel()
        await ended.value
        let later = try await store.write(Self.json("second only"), forKey: key)
        let seenLater = await collect(from: second, key: key, until: later.version)
        recorder.expect(seenLater.last == later, "after another feed's consumer was cancelled, a feed delivered \(seenLater.map { Self.describe($0) }), expected \(Self.describe(later))")
    }

    func changesEndOnCancellation(_ recorder: inout CheckRecorder) async {
        let feed = SyncChange.records(of: store.changeFeed())
        let consumer = Task {
            for await _ in feed {}
            return true
        }
        consumer.cancel()
        let ended = await Self.race(timeout: timeout) { await consumer.value }
        recorder.expect(ended == true, "a feed's consumer was still running \(timeout) after its task was cancelled")
    }

    func limits(_ recorder: inout CheckRecorder) async throws {
        let longest = key(String(repeating: "k", count: max(0, SyncLimits.maxKeyBytes - keyPrefix.utf8.count)))
        let tooLong = longest + "k"
        let small = Self.json("small")
        // JSON strings (a quote, letters, a quote) of exactly the limit and one byte more.
        let largest = Self.json(String(repeating: "v", count: SyncLimits.maxValueBytes - 2))
        let tooLarge = Self.json(String(repeating: "v", count: SyncLimits.maxValueBytes - 1))
        let valueKey = key("limits-value")
        let rejected: [(String, SyncStoreError.Kind, String, Data?)] = [
            ("an empty key", .invalidKey, "", small),
            ("a key of \(tooLong.utf8.count) UTF-8 bytes", .invalidKey, tooLong, small),
            ("a value of \(tooLarge.count) bytes", .valueTooLarge, valueKey, tooLarge),
            ("a key containing NUL", .invalidKey, key("limits-nul\u{0}key"), small),
        ]
        for (what, kind, key, value) in rejected {
            await expectRejection(&recorder, what: "write of \(what)", kind: kind, key: key) {
                _ = try await store.write(value, forKey: key)
            }
            await expectRejection(&recorder, what: "compareAndSet of \(what)", kind: kind, key: key) {
                _ = try await store.compareAndSet(value, forKey: key, expectedVersion: 0)
            }
            // Reading an invalid key may throw `invalidKey` too; it must not find a record.
            do {
                let fetched = try await store.fetchRecord(forKey: key)
                recorder.expect(fetched == nil, "rejected writes of \(what) left \(Self.describe(fetched))")
            } catch let error as SyncStoreError where error.kind == .invalidKey && kind == .invalidKey {
                // Rejected on reading as well: nothing was stored.
            }
        }
        let atKeyLimit = try await store.write(small, forKey: longest)
        recorder.expect(atKeyLimit.key == longest, "write to a key of exactly \(SyncLimits.maxKeyBytes) UTF-8 bytes committed \(Self.describe(atKeyLimit))")
        let atValueLimit = try await store.write(largest, forKey: valueKey)
        recorder.expect(atValueLimit.value == largest, "write of a value of exactly \(SyncLimits.maxValueBytes) bytes committed \(atValueLimit.value.map { "\($0.count) bytes" } ?? "nothing")")
        // Leave a tombstone, not a megabyte, in a store that outlives the run.
        _ = try await store.write(nil, forKey: valueKey)
    }

    func concurrentCompareAndSet(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("counter")
        let tasks = 4, increments = 25
        let store = self.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<increments {
                        var current = try await store.fetchRecord(forKey: key)
                        while true {
                            let count = current.flatMap(\.value).flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                            let commit = try await store.compareAndSet(Data("\(count + 1)".utf8), forKey: key, expectedVersion: current?.version ?? 0)
                            guard case let .conflict(newer) = commit else { break }
                            current = newer
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try await store.fetchRecord(forKey: key)
        let count = final.flatMap(\.value).flatMap { Int(String(decoding: $0, as: UTF8.self)) }
        recorder.expect(count == tasks * increments, "\(tasks) tasks incrementing key \"\(key)\" \(increments) times each with compareAndSet loops ended at \(Self.describe(final)), expected \(tasks * increments)")
        recorder.expect((final?.version ?? 0) >= Int64(tasks * increments), "\(tasks * increments) committed increments of key \"\(key)\" ended at version \(final?.version ?? 0)")
    }

    // MARK: - Helpers

    private func expectRejection(_ recorder: inout CheckRecorder, what: String, kind: SyncStoreError.Kind, key: String, _ operation: () async throws -> Void) async {
        do {
            try await operation()
            recorder.fail("\(what) succeeded; expected SyncStoreError of kind \(kind)")
        } catch let error as SyncStoreError {
            recorder.expect(error.kind == kind && error.key == key, "\(what) threw \"\(error)\" (kind \(error.kind)); expected kind \(kind) naming the key")
        } catch {
            recorder.fail("\(what) threw \(type(of: error)) \"\(error)\"; expected SyncStoreError of kind \(kind)")
        }
    }

    /// The records `feed` delivers for `key` until one has at least version `version`, or
    /// until ``timeout`` passes; records of other keys are skipped.
    private func collect(from feed: AsyncStream<SyncRecord>, key: String, until version: Int64) async -> [SyncRecord] {
        let collected = await Self.race(timeout: timeout) {
            var records: [SyncRecord] = []
            for await record in feed where record.key == key {
                records.append(record)
                if record.version >= version { break }
            }
            return records
        }
        return collected ?? []
    }

    /// `operation`'s result, or `nil` when `timeout` passes first (the operation is then
    /// cancelled).
    static func race<T: Sendable>(timeout: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await operation() }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return nil  // Cancelled: the operation finished first.
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
