// The file format SyncState-LocalStore.md shows, read by the store and rewritten to the same
// text. Apart from LocalSyncStoreGuideSnippets.swift, whose snippets compile against the public
// products only: this test compares with the internal encoder.
import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

@Suite("SyncState-LocalStore.md file format", .isolatedApplication)
struct LocalSyncStoreGuideFileFormat {
    @Test("the file format shown is what the store writes and reads")
    func fileFormat() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let shown = #"""
            {
              "format" : 1,
              "epoch" : "5F0C6A52-8D0B-4A4E-9C1D-2B7B0C1D9E11",
              "sequence" : 42,
              "records" : {
                "App/flags" : {"version":41,"value":"{\"beta\":true}","crc":"a9e97e83"},
                "App/gone" : {"version":42,"value":null,"removedAt":1764316800,"crc":"4ca83c7b"}
              }
            }

            """#
        try Data(shown.utf8).write(to: URL(fileURLWithPath: path))
        let store = LocalSyncStore(path: path)
        #expect(try await store.snapshot() == [
            SyncRecord(key: "App/flags", value: Data(#"{"beta":true}"#.utf8), version: 41),
            SyncRecord(key: "App/gone", value: nil, version: 42),
        ])
        // Rewriting the same records gives the same text, epoch included.
        let file = try LocalSyncFile.decode(Data(shown.utf8))
        #expect(file.epoch == "5F0C6A52-8D0B-4A4E-9C1D-2B7B0C1D9E11")
        #expect(String(decoding: file.encoded(), as: UTF8.self) == shown)
    }
}
