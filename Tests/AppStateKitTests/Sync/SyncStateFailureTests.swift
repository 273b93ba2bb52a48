import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

fileprivate struct Profile: Codable, Sendable, Equatable {
    var name: String
}

/// A value whose encoding always fails (a `Codable` type with a bug, say).
fileprivate struct Unencodable: Codable, Sendable, Equatable {
    var level: Int

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(level, .init(codingPath: [], debugDescription: "refused on purpose"))
    }
}

fileprivate extension Application {
    var failUnencodable: SyncState<Unencodable> { syncState(initial: Unencodable(level: 1), feature: "Fail", id: "unencodable") }
    var failCounter: SyncState<Int> { syncState(initial: 0, feature: "Fail", id: "counter") }
    var failProfile: SyncState<Profile> { syncState(initial: Profile(name: "guest"), feature: "Fail", id: "profile") }
    var failLongKey: SyncState<Int> { syncState(initial: 1, feature: "Fail", id: String(repeating: "k", count: SyncLimits.maxKeyBytes)) }
    var failBlob: SyncState<String> { syncState(initial: "", feature: "Fail", id: "blob") }
}

@Suite("SyncState failures", .isolatedApplication, .reportsAsDiagnostics)
struct SyncStateFailureTests {
    @Test("a failed background write is reported naming the key, and the value returns to the store's")
    func failedWriteConverges() async throws {
        let errors = collectErrors()
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        _ = try await store.inner.write(Data("5".utf8), forKey: "Fail/counter")
        var counter = Application.syncState(\.failCounter)
        #expect(counter.value == 5)

        store.failWrites(true)
        counter.value = 9
        #expect(counter.value == 9)   // read-your-writes, before the store answered
        #expect(await eventually { counter.value == 5 })
        #expect(await eventually { errors.messages.contains { $0.contains("\"Fail/counter\" could not be written") && $0.contains("scripted failure") } })
        #expect(try store.inner.cachedRecord(forKey: "Fail/counter")?.value == Data("5".utf8))

        store.failWrites(false)
        counter.value = 10
        #expect(try await counter.read() == 10)
    }

    @Test("write(_:) throws the store's error and the value converges to the store's")
    func failedWriteThrows() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        _ = try await store.inner.write(Data("5".utf8), forKey: "Fail/counter")
        store.failWrites(true)
        await #expect(throws: SyncStoreError.self) {
            try await Application.syncState(\.failCounter).write(6)
        }
        #expect(await eventually { Application.syncState(\.failCounter).value == 5 })
    }

    @Test("a write failing while another of the key is queued: the later write wins, then the value is the store's")
    func failureAmongQueuedWrites() async throws {
        _ = collectErrors()
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        var counter = Application.syncState(\.failCounter)
        store.pause(true)
        store.failWrites(true)
        counter.value = 1
        #expect(await eventually { store.writes.count == 1 })
        counter.value = 2
        store.pause(false)
        // The first write fails while the second is queued: the cache keeps 2 until that settles.
        #expect(await eventually { store.writes.count == 2 })
        #expect(await eventually { counter.value == 0 })   // both failed: the store has nothing
        store.failWrites(false)
        counter.value = 3
        #expect(try await counter.read() == 3)
    }

    @Test("undecodable JSON: value is the initial value, reported once naming the key; read() throws corruptRecord")
    func corruptRecord() async throws {
        let errors = collectErrors()
        let store = installStore()
        _ = try await store.write(Data("{not json".utf8), forKey: "Fail/profile")
        #expect(Application.syncState(\.failProfile).value == Profile(name: "guest"))
        #expect(Application.syncState(\.failProfile).value == Profile(name: "guest"))
        let reports = errors.messages.filter { $0.contains("\"Fail/profile\"") }
        #expect(reports.count == 1)
        #expect(reports.first?.contains("corrupt record") == true)

        await #expect { try await Application.syncState(\.failProfile).read() } throws: { error in
            (error as? SyncStoreError)?.kind == .corruptRecord && (error as? SyncStoreError)?.key == "Fail/profile"
        }
        // Nothing was overwritten.
        #expect(try store.cachedRecord(forKey: "Fail/profile")?.value == Data("{not json".utf8))
    }

    @Test("a local copy that can't be read is reported once per key when the entry is first used, and again for a new store")
    func unreadableLocalCopyReportedOnce() async throws {
        let errors = collectErrors()
        let store = ScriptedSyncStore()
        store.failCachedReads(true)
        Application.promote(\.syncStore, with: store)
        for _ in 0..<3 {
            #expect(Application.syncState(\.failCounter).value == 0)
        }
        let unreadable = { errors.messages.filter { $0.contains("\"Fail/counter\" could not be read from the sync store's local copy") } }
        #expect(unreadable().count == 1)
        #expect(unreadable().first?.contains("scripted damage") == true)

        let replacement = ScriptedSyncStore()
        replacement.failCachedReads(true)
        Application.promote(\.syncStore, with: replacement)
        for _ in 0..<3 {
            #expect(Application.syncState(\.failCounter).value == 0)
        }
        #expect(await eventually { unreadable().count == 2 })
        #expect(unreadable().count == 2)
    }

    @Test("refresh() doesn't throw for bad data (it is reported, as for value) but read() does")
    func refreshWithBadData() async throws {
        let errors = collectErrors()
        let store = installStore()
        #expect(Application.syncState(\.failCounter).value == 0)
        _ = try await store.write(Data("{".utf8), forKey: "Fail/counter")
        try await Application.syncState(\.failCounter).refresh()
        #expect(errors.messages.filter { $0.contains("\"Fail/counter\" reads as its initial value") }.count == 1)
        await #expect(throws: SyncStoreError.self) { try await Application.syncState(\.failCounter).read() }
    }

    @Test("a value that can't be encoded is refused before anything changes: the setter reports it, write(_:) throws")
    func unencodableValue() async throws {
        let errors = collectErrors()
        let store = installStore()
        var value = Application.syncState(\.failUnencodable)
        value.value = Unencodable(level: 2)
        #expect(value.value == Unencodable(level: 1))
        #expect(errors.messages.contains { $0.contains("\"Fail/unencodable\"") && $0.contains("refused on purpose") })
        await #expect { try await value.write(Unencodable(level: 3)) } throws: { error in
            (error as? SyncStoreError)?.kind == .typeMismatch
        }
        #expect(value.value == Unencodable(level: 1))
        #expect(try store.cachedRecord(forKey: "Fail/unencodable") == nil)
    }

    @Test("JSON of another type: initial value and a report; update throws typeMismatch and writes nothing")
    func typeMismatch() async throws {
        let errors = collectErrors()
        let store = installStore()
        _ = try await store.write(Data("\"a string\"".utf8), forKey: "Fail/counter")
        #expect(Application.syncState(\.failCounter).value == 0)
        #expect(errors.messages.contains { $0.contains("\"Fail/counter\"") && $0.contains("type mismatch") })

        await #expect { try await Application.syncState(\.failCounter).update { $0 += 1 } } throws: { error in
            (error as? SyncStoreError)?.kind == .typeMismatch
        }
        #expect(try store.cachedRecord(forKey: "Fail/counter")?.version == 1)
    }

    @Test("a record of another shape is described in one line: what is missing and where")
    func shapeMismatchMessage() async throws {
        let store = installStore()
        _ = try await store.write(Data(#"{"nickname":"ada"}"#.utf8), forKey: "Fail/profile")
        await #expect(throws: SyncStoreError(
            .typeMismatch, key: "Fail/profile",
            detail: #"the stored JSON (version 1, 18 bytes) does not decode as Profile: missing key "name""#
        )) {
            try await Application.syncState(\.failProfile).read()
        }
    }

    @Test("a change in place of a value whose record can't be used writes nothing and says so; an assignment replaces it")
    func changeOfUnusableRecord() async throws {
        let errors = collectErrors()
        let store = installStore()
        _ = try await store.write(Data("\"a string\"".utf8), forKey: "Fail/counter")
        var counter = Application.syncState(\.failCounter)
        #expect(counter.value == 0)
        counter.value += 1
        counter.modify { $0 += 1 }
        try await Application.syncState(\.failCounter).write(counter.value)  // waits for anything queued before it
        #expect(try store.cachedRecord(forKey: "Fail/counter")?.value == Data("0".utf8))
        #expect(errors.messages.filter { $0.hasPrefix(#"AppStateKit: SyncState "Fail/counter" was not written: its stored value could not be used (type mismatch"#)
            && $0.hasSuffix("the change starts from the stored value, so the stored value is kept (assign a value or reset() to replace it)") }.count == 2)
        // The explicit write above replaced the record, reported as before.
        #expect(errors.messages.contains { $0.contains("replacing a stored value that could not be used") && $0.contains("Fail/counter") })
        counter.value += 1
        #expect(try await Application.syncState(\.failCounter).read() == 1)
    }

    @Test("a bad record pushed by the store later is reported once too, and an explicit write replaces it, reported")
    func badRecordReplacedByWrite() async throws {
        let errors = collectErrors()
        let store = installStore()
        try await Application.syncState(\.failCounter).write(1)
        _ = try await store.write(Data("[]".utf8), forKey: "Fail/counter")
        #expect(await eventually { errors.messages.contains { $0.contains("reads as its initial value") } })
        #expect(Application.syncState(\.failCounter).value == 0)

        try await Application.syncState(\.failCounter).write(4)
        #expect(errors.messages.contains { $0.contains("replacing a stored value that could not be used") && $0.contains("Fail/counter") })
        #expect(try store.cachedRecord(forKey: "Fail/counter")?.value == Data("4".utf8))
        #expect(errors.messages.filter { $0.contains("reads as its initial value") }.count == 1)
    }

    @Test("limits: an over-long key reads its initial value, is reported, and throwing calls throw invalidKey")
    func keyTooLong() async throws {
        let errors = collectErrors()
        installStore()
        var long = Application.syncState(\.failLongKey)
        #expect(long.value == 1)
        #expect(errors.messages.contains { $0.contains("invalid key") })
        long.value = 2
        #expect(long.value == 1)
        await #expect { try await long.write(3) } throws: { ($0 as? SyncStoreError)?.kind == .invalidKey }
    }

    @Test("limits: a value over SyncLimits.maxValueBytes is refused, reported or thrown, and not shown")
    func valueTooLarge() async throws {
        let errors = collectErrors()
        let store = installStore()
        var blob = Application.syncState(\.failBlob)
        let huge = String(repeating: "x", count: SyncLimits.maxValueBytes)
        blob.value = huge
        #expect(blob.value == "")
        #expect(errors.messages.contains { $0.contains("value too large") && $0.contains("Fail/blob") })
        await #expect { try await blob.write(huge) } throws: { ($0 as? SyncStoreError)?.kind == .valueTooLarge }
        #expect(try store.cachedRecord(forKey: "Fail/blob") == nil)
    }

    @Test("update gives up with contention after maxAttempts conflicts, having run its body each time")
    func contention() async throws {
        let store = ScriptedSyncStore()
        Application.promote(\.syncStore, with: store)
        store.interfere(true)   // another writer commits between every read and compare-and-set
        let calls = CallCounter()
        await #expect {
            try await Application.syncState(\.failCounter).update(maxAttempts: 3) { value in
                calls.increment()
                value += 1
            }
        } throws: { error in
            (error as? SyncStoreError)?.kind == .contention && (error as? SyncStoreError)?.key == "Fail/counter"
        }
        #expect(calls.value == 3)
        #expect(try store.inner.cachedRecord(forKey: "Fail/counter")?.value == Data("100".utf8))
    }

    @Test("update throws what its body throws and commits nothing")
    func updateBodyThrows() async throws {
        struct Refused: Error {}
        let store = installStore()
        await #expect(throws: Refused.self) {
            try await Application.syncState(\.failCounter).update { _ in throw Refused() }
        }
        #expect(try store.cachedRecord(forKey: "Fail/counter") == nil)
    }

    // A feed's end: SyncStoreStatusTests (a normal stop is quiet, an unexpected end reported).
}
