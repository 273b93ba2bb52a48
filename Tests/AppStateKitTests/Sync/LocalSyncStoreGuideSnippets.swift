// The snippets of SyncState-LocalStore.md, compiled and run, with the file in a temporary
// directory instead of /var/lib/myapp.
import AppStateKitTesting
import Foundation
import Testing
import AppStateKit

/// The guide's `print` calls stay verbatim; in this file they print only as test diagnostics
/// (APPSTATEKIT_TEST_DIAGNOSTICS, see TestDiagnostics.swift), so a green run stays quiet.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    diagnostic(items.map { "\($0)" }.joined(separator: separator))
}

@Suite("SyncState-LocalStore.md snippets", .isolatedApplication)
struct LocalSyncStoreGuideSnippets {
    @Test("the introduction's store (created only: it touches no file until written)")
    func introductionStore() {
        let store = LocalSyncStore(path: "/var/lib/myapp/sync.json")
        #expect(store.path == "/var/lib/myapp/sync.json")
    }

    @Test("the introduction's write and read, on a store in a temporary directory")
    func introduction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = LocalSyncStore(path: directory.file("myapp/sync.json"))
        try await introduction(store)
    }

    private func introduction(_ store: LocalSyncStore) async throws {
        let committed = try await store.write(Data("true".utf8), forKey: "App/maintenance")
        print(committed)                            // App/maintenance@1 (4 bytes)
        print(try store.cachedRecord(forKey: "App/maintenance") == committed)   // true
        #expect("\(committed)" == "App/maintenance@1 (4 bytes)")
        #expect(try store.cachedRecord(forKey: "App/maintenance") == committed)
    }

    @Test("choosing polling")
    func polling() {
        let polled = LocalSyncStore(path: "/var/lib/myapp/sync.json", changeDetection: .polling(every: .milliseconds(20)))
        #expect(polled.changeDetection == .polling(every: .milliseconds(20)))
        #expect("\(polled.changeDetection)" == "polling every 0.02 seconds")
    }
}
