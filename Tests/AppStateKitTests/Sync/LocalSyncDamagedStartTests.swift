import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

fileprivate extension Application {
    var startGood: SyncState<Int> { syncState(initial: 0, feature: "Start", id: "good") }
    var startBad: SyncState<Int> { syncState(initial: 0, feature: "Start", id: "bad") }
    var startOther: SyncState<Int> { syncState(initial: 0, feature: "Start", id: "other") }
}

/// A damaged shared file never stops a start (issue 42, "a damaged shared file stops a program
/// before it starts", the store's part): the embedded store over a `sync.json` with a corrupt
/// record opens and is ready, serves every other key through SyncState, reports the damaged one
/// with its key, the file and what to do, and a write repairs it.
@Suite("LocalSyncStore starting over a damaged file", .isolatedApplication, .reportsAsDiagnostics)
struct LocalSyncDamagedStartTests {
    @Test("a store over a file with a damaged record is ready, serves the other keys, reports the damaged one and writes every key")
    func startsOverDamage() async throws {
        let messages = collectErrors()
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        try Data(#"""
            {"format":1,"epoch":"E","sequence":9223372036854775807,"records":{
              "Start/bad" : {"version":9223372036854775807,"value":"5"},
              "Start/good" : {"version":3,"value":"7"}
            }}
            """#.utf8).write(to: URL(fileURLWithPath: path))

        let store = LocalSyncStore(path: path)
        try await store.waitUntilReady(timeout: .seconds(60))
        Application.promote(\.syncStore, with: store)
        #expect(Application.syncState(\.startGood).value == 7)
        let report = messages.messages.first { $0.contains("\"Start/bad\"") }
        #expect(report?.contains(path) == true && report?.contains("written again") == true, "\(messages.messages)")
        await #expect(throws: SyncStoreError.self) { _ = try await store.fetchRecord(forKey: "Start/bad") }

        // Writes of every key go through (the one that trapped every writer included), and the
        // damaged key is repaired by its own write.
        try await Application.syncState(\.startOther).write(1)
        try await Application.syncState(\.startGood).write(8)
        // (Through the store: the report of the bytes kept aside is logged in this task.)
        _ = try await store.write(Data("6".utf8), forKey: "Start/bad")
        #expect(Application.syncState(\.startBad).value == 6)
        let fresh = LocalSyncStore(path: path)
        #expect(try fresh.cachedRecord(forKey: "Start/bad")?.value == Data("6".utf8))
        #expect(try fresh.cachedRecord(forKey: "Start/good")?.value == Data("8".utf8))
        #expect(try fresh.cachedRecord(forKey: "Start/other")?.value == Data("1".utf8))
        #expect(messages.messages.filter { $0.hasPrefix("AppStateKit: the record of sync key \"Start/bad\"") }.count == 1, "reported once: \(messages.messages)")
    }
}
