import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

private struct Profile: Codable, Sendable, Equatable {
    var name: String
    var visits: Int
}

extension Application {
    fileprivate var untaggedCounter: StoredState<Int> { storedState(initial: 0, id: "counter") }
    fileprivate var untaggedProfile: StoredState<Profile> { storedState(initial: Profile(name: "nobody", visits: 0), id: "profile") }
}

/// Issue 34, item 8: a value edited by hand into the store without a type tag is read when it
/// decodes as the declared type, and written back tagged by the next write; only what fits
/// neither is corrupt.
@Suite("StoredState: untagged values edited into the key-value store", .isolatedApplication)
struct UntaggedStoreValueTests {
    static let path = "/config/app/defaults.json"

    /// A store file holding `text`, as the application's `\.userDefaults`.
    private func store(holding text: String) -> InMemoryFileSystem {
        let files = InMemoryFileSystem()
        files.createFile(atPath: Self.path, text: text)
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: Self.path, fileSystem: files))
        return files
    }

    @Test("{\"App/counter\": 7} reads as 7 and is written back tagged by the next write")
    func untaggedNumber() throws {
        let files = store(holding: #"{"App/counter": 7}"#)
        var counter = Application.storedState(\.untaggedCounter)
        let logs = capturingLogs {
            #expect(counter.value == 7)
            counter.value += 1
        }
        #expect(logs.isEmpty)
        #expect(try counter.read() == 8)
        let written = try JSONSerialization.jsonObject(with: Data((files.text(atPath: Self.path) ?? "").utf8)) as? [String: Any]
        #expect((written?["App/counter"] as? [String: Any])?["int"] as? Int == 8)
    }

    @Test("update starts from the untagged value")
    func updateFromUntagged() throws {
        _ = store(holding: #"{"App/counter": 7}"#)
        try Application.storedState(\.untaggedCounter).update { $0 += 10 }
        #expect(try Application.storedState(\.untaggedCounter).read() == 17)
    }

    @Test("an untagged object reads as the Codable value it encodes")
    func untaggedObject() throws {
        _ = store(holding: #"{"App/profile": {"name": "ada", "visits": 3}}"#)
        #expect(try Application.storedState(\.untaggedProfile).read() == Profile(name: "ada", visits: 3))
    }

    @Test("a value that fits neither the tags nor the declared type is corrupt, naming the key")
    func neitherIsCorrupt() throws {
        _ = store(holding: #"{"App/counter": "seven"}"#)
        #expect {
            try Application.storedState(\.untaggedCounter).read()
        } throws: { error in
            let error = try #require(error as? PersistenceError)
            return error.kind == .corruptData && error.subject == #"key "App/counter" in /config/app/defaults.json"#
        }
    }
}
