import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

extension ProcessGlobalTests {
    /// Issue 11, item 15 (persistence part): with `Application.logging(isEnabled: true)`, the store
    /// says when it reloads and corrupt data says where it was moved; with logging off, nothing.
    ///
    /// Turns the process-wide logging flag on for the test's duration, so it runs serialized with
    /// the other process-global tests.
    @Suite("Persistence debug messages")
    struct PersistenceDebugMessageTests {
        @Test("store reloaded, corrupt data moved aside (store and FileState)")
        func debugMessages() throws {
            Application.logging(isEnabled: true)
            defer { Application.logging(isEnabled: false) }
            let files = InMemoryFileSystem()
            files.createFile(atPath: "/config/defaults.json", text: #"{"a": {"int": 1}, "b": {"int": 1.5}}"#)
            files.createFile(atPath: "/data/note.json", text: "not json")
            let store = FileKeyValueStore(path: "/config/defaults.json", fileSystem: files)
            let logs = try capturingLogs(includingDebug: true) { () throws in
                #expect(store.object(forKey: "a") as? Int == 1)
                #expect(store.object(forKey: "a") as? Int == 1)  // unchanged: no reload
                try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
                    try Application().fileState(initial: "", path: "/data", filename: "note.json").write("fixed")
                }
            }
            let backup = try #require(files.contentsOfDirectory(atPath: "/data").first { $0.hasPrefix("note.json.corrupt-") })
            #expect(logs.contains("AppStateKit: reloaded the store /config/defaults.json (2 keys, 1 unreadable)"))
            #expect(logs.filter { $0.hasPrefix("AppStateKit: reloaded") }.count == 1)
            #expect(logs.contains("AppStateKit: moved corrupt data aside: /data/note.json → /data/\(backup)"))

            files.createFile(atPath: "/config/defaults.json", text: "[]")
            let storeLogs = try capturingLogs(includingDebug: true) { try store.writeObject(2, forKey: "a") }
            let storeBackup = try #require(files.contentsOfDirectory(atPath: "/config").first { $0.hasPrefix("defaults.json.corrupt-") })
            #expect(storeLogs.contains("AppStateKit: moved corrupt data aside: /config/defaults.json → /config/\(storeBackup)"))
            #expect(storeLogs.contains("AppStateKit: reloaded the store /config/defaults.json (corrupt)"))

            Application.logging(isEnabled: false)
            files.createFile(atPath: "/config/defaults.json", text: #"{"a": {"int": 3}}"#)
            let quietLogs = capturingLogs(includingDebug: true) { #expect(store.object(forKey: "a") as? Int == 3) }
            #expect(quietLogs.isEmpty)
        }
    }
}
