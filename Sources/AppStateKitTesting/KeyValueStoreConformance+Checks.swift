import AppStateKit
import Foundation

extension KeyValueStoreConformance {
    func perform(_ check: Check, _ recorder: inout CheckRecorder) async throws {
        if let samples = KeyValueSample.samples[check] {
            for (index, sample) in samples.enumerated() {
                let key = self.key("\(check)-\(index)")
                store.set(sample.value, forKey: key)
                let read = store.object(forKey: key)
                recorder.expect(sample.matches(read), "key \"\(key)\" written as \(sample), read back \(KeyValueSample.describe(read))")
            }
            return
        }
        switch check {
        case .removal: removal(&recorder)
        case .overwrite: overwrite(&recorder)
        case .throwingAccessors: try throwingAccessors(&recorder)
        case .independentKeys: independentKeys(&recorder)
        case .valuesSurviveLaterWrites: valuesSurviveLaterWrites(&recorder)
        case .concurrentWriters: await concurrentWriters(&recorder)
        case .persistence: try persistence(&recorder)
        default: recorder.fail("unknown check")
        }
    }

    func removal(_ recorder: inout CheckRecorder) {
        let never = key("never-written")
        recorder.expect(store.object(forKey: never) == nil, "key \"\(never)\" was never written, read \(KeyValueSample.describe(store.object(forKey: never)))")
        let viaNil = key("set-nil")
        store.set("value", forKey: viaNil)
        store.set(nil, forKey: viaNil)
        recorder.expect(store.object(forKey: viaNil) == nil, "set(nil, forKey: \"\(viaNil)\") left \(KeyValueSample.describe(store.object(forKey: viaNil)))")
        let viaRemove = key("remove")
        store.set(1, forKey: viaRemove)
        store.removeObject(forKey: viaRemove)
        recorder.expect(store.object(forKey: viaRemove) == nil, "removeObject(forKey: \"\(viaRemove)\") left \(KeyValueSample.describe(store.object(forKey: viaRemove)))")
        store.removeObject(forKey: viaRemove)
        recorder.expect(store.object(forKey: viaRemove) == nil, "removing the absent key \"\(viaRemove)\" again made it \(KeyValueSample.describe(store.object(forKey: viaRemove)))")
        store.set(2, forKey: viaRemove)
        recorder.expect(store.object(forKey: viaRemove) as? Int == 2, "key \"\(viaRemove)\" written with 2 after its removal reads \(KeyValueSample.describe(store.object(forKey: viaRemove)))")
    }

    func overwrite(_ recorder: inout CheckRecorder) {
        let key = self.key("overwrite")
        store.set("first", forKey: key)
        store.set("second", forKey: key)
        recorder.expect(store.object(forKey: key) as? String == "second", "key \"\(key)\" written \"first\" then \"second\", read \(KeyValueSample.describe(store.object(forKey: key)))")
        store.set(42, forKey: key)
        recorder.expect(store.object(forKey: key) as? Int == 42, "key \"\(key)\" holding a String, overwritten with Int 42, read \(KeyValueSample.describe(store.object(forKey: key)))")
        store.set(["a": 1], forKey: key)
        recorder.expect(store.object(forKey: key) as? [String: Int] == ["a": 1], "key \"\(key)\" overwritten with [\"a\": 1], read \(KeyValueSample.describe(store.object(forKey: key)))")
    }

    func throwingAccessors(_ recorder: inout CheckRecorder) throws {
        let written = key("writeObject")
        try store.writeObject("through writeObject", forKey: written)
        recorder.expect(store.object(forKey: written) as? String == "through writeObject", "writeObject(\"through writeObject\", forKey: \"\(written)\"), then object(forKey:) read \(KeyValueSample.describe(store.object(forKey: written)))")
        let set = key("set")
        store.set(7, forKey: set)
        let read = try store.readObject(forKey: set)
        recorder.expect(read as? Int == 7, "set(7, forKey: \"\(set)\"), then readObject(forKey:) read \(KeyValueSample.describe(read))")
        try store.writeObject(nil, forKey: set)
        let removed = try store.readObject(forKey: set)
        recorder.expect(removed == nil, "writeObject(nil, forKey: \"\(set)\") left \(KeyValueSample.describe(removed)) for readObject(forKey:)")
        recorder.expect(store.object(forKey: set) == nil, "writeObject(nil, forKey: \"\(set)\") left \(KeyValueSample.describe(store.object(forKey: set))) for object(forKey:)")
        let absent = try store.readObject(forKey: key("never-written"))
        recorder.expect(absent == nil, "readObject(forKey:) of a key never written read \(KeyValueSample.describe(absent))")
    }

    func independentKeys(_ recorder: inout CheckRecorder) {
        let keys = [key("k"), key("k.sub"), key("K"), key("k "), key("kk")]
        for (index, key) in keys.enumerated() { store.set(index, forKey: key) }
        store.removeObject(forKey: keys[0])
        store.set(100, forKey: keys[2])
        let expected: [Int?] = [nil, 1, 100, 3, 4]
        for (key, value) in zip(keys, expected) {
            let read = store.object(forKey: key)
            recorder.expect(read as? Int == value, "after writing \(keys.map { "\"\($0)\"" }.joined(separator: ", ")), removing the first and overwriting the third, key \"\(key)\" reads \(KeyValueSample.describe(read)), expected \(value.map(String.init) ?? "nil")")
        }
    }

    func valuesSurviveLaterWrites(_ recorder: inout CheckRecorder) {
        let samples = allSamples(named: "later")
        for (key, sample) in samples { store.set(sample.value, forKey: key) }
        let other = key("later-other")
        store.set("another key", forKey: other)
        store.removeObject(forKey: other)
        for (key, sample) in samples {
            let read = store.object(forKey: key)
            recorder.expect(sample.matches(read), "key \"\(key)\" written as \(sample), read back \(KeyValueSample.describe(read)) after other keys were written")
        }
    }

    /// Every round-trip sample, each under its own key `<prefix><name>-<check>-<index>`.
    func allSamples(named name: String) -> [(String, KeyValueSample)] {
        Check.allCases.flatMap { check in
            (KeyValueSample.samples[check] ?? []).enumerated().map { (key("\(name)-\(check)-\($0.offset)"), $0.element) }
        }
    }

    func concurrentWriters(_ recorder: inout CheckRecorder) async {
        let tasks = 4, keysPerTask = 16
        let store = self.store
        let keys = (0..<tasks).map { task in (0..<keysPerTask).map { key("concurrent-\(task)-\($0)") } }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for (index, key) in keys[task].enumerated() { store.set(task * 1_000 + index, forKey: key) }
                }
            }
        }
        var missing: [String] = []
        for task in 0..<tasks {
            for (index, key) in keys[task].enumerated() where store.object(forKey: key) as? Int != task * 1_000 + index {
                missing.append("\"\(key)\" reads \(KeyValueSample.describe(store.object(forKey: key)))")
            }
        }
        recorder.expect(missing.isEmpty, "\(missing.count) of \(tasks * keysPerTask) keys written by \(tasks) concurrent tasks are lost: \(missing.prefix(5).joined(separator: "; "))")
    }

    func persistence(_ recorder: inout CheckRecorder) throws {
        guard let reopen else { return }
        let samples = allSamples(named: "persisted")
        for (key, sample) in samples { store.set(sample.value, forKey: key) }
        let removed = key("persisted-removed")
        store.set(1, forKey: removed)
        store.removeObject(forKey: removed)
        let second = try reopen()
        for (key, sample) in samples {
            let read = second.object(forKey: key)
            recorder.expect(sample.matches(read), "key \"\(key)\" written as \(sample) through the first instance, read back \(KeyValueSample.describe(read)) through a new one")
        }
        recorder.expect(second.object(forKey: removed) == nil, "key \"\(removed)\" removed through the first instance reads \(KeyValueSample.describe(second.object(forKey: removed))) through a new one")
    }
}
