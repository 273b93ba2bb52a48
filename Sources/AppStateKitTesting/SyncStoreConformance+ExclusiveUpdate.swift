import AppStateKit
import Foundation
import Synchronization

extension SyncStoreConformance {
    /// The error the exclusive-update check's transform throws.
    struct RefusedTransform: Error {}

    func exclusiveUpdates(_ recorder: inout CheckRecorder) async throws {
        let key = self.key("exclusive")
        let store = self.store
        let runs = Atomic<Int>(0)
        let first = try await store.exclusiveUpdate(forKey: key) { record in
            runs.add(1, ordering: .relaxed)
            return Data("\(Self.count(record) + 1)".utf8)
        }
        guard let first else {
            // The store can't hold writers off: the default contract is to do nothing.
            let ran = runs.load(ordering: .relaxed)
            recorder.expect(ran == 0, "updateExclusively returned nil (unsupported) but ran its transform \(ran) times")
            let record = try await store.fetchRecord(forKey: key)
            recorder.expect(record == nil, "updateExclusively returned nil (unsupported) but key \"\(key)\" now holds \(Self.describe(record))")
            return
        }
        recorder.expect(first.key == key && first.value == Data("1".utf8) && first.version >= 1, "the first exclusive update of key \"\(key)\" returned \(Self.describe(first)), expected the value 1 at a version of at least 1")

        // Exclusive updates and compare-and-set loops on one key, at once: each counts once.
        let tasks = 4, increments = 10
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for _ in 0..<increments {
                        if task.isMultiple(of: 2) {
                            _ = try await store.exclusiveUpdate(forKey: key) { Data("\(Self.count($0) + 1)".utf8) }
                            continue
                        }
                        var current = try await store.fetchRecord(forKey: key)
                        while case let .conflict(newer) = try await store.compareAndSet(Data("\(Self.count(current) + 1)".utf8), forKey: key, expectedVersion: current?.version ?? 0) {
                            current = newer
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let counted = try await store.fetchRecord(forKey: key)
        let expected = 1 + tasks * increments
        recorder.expect(Self.count(counted) == expected, "exclusive updates and compare-and-set loops on key \"\(key)\" ended at \(Self.describe(counted)), expected \(expected)")

        // A transform that throws: the error comes back unchanged and nothing is committed.
        do {
            let record = try await store.exclusiveUpdate(forKey: key) { _ in throw RefusedTransform() }
            recorder.fail("an exclusive update whose transform threw returned \(Self.describe(record))")
        } catch is RefusedTransform {
        } catch {
            recorder.fail("an exclusive update whose transform threw RefusedTransform threw \(error) instead")
        }
        let after = try await store.fetchRecord(forKey: key)
        recorder.expect(after == counted, "an exclusive update whose transform threw changed key \"\(key)\" from \(Self.describe(counted)) to \(Self.describe(after))")
    }

    /// The integer a counter record holds (0: none).
    static func count(_ record: SyncRecord?) -> Int {
        record.flatMap(\.value).flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
    }
}
