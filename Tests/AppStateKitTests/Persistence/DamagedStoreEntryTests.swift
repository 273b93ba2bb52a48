import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 11, item 6: one malformed entry damages only its own key.
@Suite("FileKeyValueStore: a malformed entry damages only its key", .isolatedApplication)
struct DamagedStoreEntryTests {
    static let path = "/config/app/defaults.json"
    static let file = """
        {
          "bare" : 5,
          "good" : { "int" : 1 },
          "half" : { "int" : 1.5 },
          "name" : { "string" : "kept" },
          "odd" : { "number" : 3 },
          "two" : { "int" : 1, "string" : "x" },
          "deep" : { "array" : [ { "int" : 1 }, { "bool" : "yes" } ] }
        }
        """

    private func store() -> (InMemoryFileSystem, FileKeyValueStore) {
        let files = InMemoryFileSystem()
        files.createFile(atPath: Self.path, text: Self.file)
        return (files, FileKeyValueStore(path: Self.path, fileSystem: files))
    }

    @Test("the other keys read normally")
    func otherKeysRead() throws {
        let (_, store) = store()
        #expect(try store.readObject(forKey: "good") as? Int == 1)
        #expect(try store.readObject(forKey: "name") as? String == "kept")
        #expect(try store.keys == ["bare", "deep", "good", "half", "name", "odd", "two"])
    }

    @Test("on disk: the other keys read normally and a write keeps the malformed entry")
    func onDisk() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        try Data(#"{"good": {"int": 1}, "half": {"int": 1.5}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let store = FileKeyValueStore(path: path)
        #expect(try store.readObject(forKey: "good") as? Int == 1)
        try store.writeObject(2, forKey: "other")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["defaults.json", "defaults.json.lock"])
        #expect(throws: PersistenceError.self) { try FileKeyValueStore(path: path).readObject(forKey: "half") }
        #expect(try FileKeyValueStore(path: path).readObject(forKey: "good") as? Int == 1)
    }

    @Test("reading a malformed entry throws an error naming its key, the file and what is wrong", arguments: [
        ("half", #"the value tagged "int" is not an Int"#),
        ("odd", #"unknown type tag "number""#),
        ("bare", #"not a tagged value; expected an object like {"int": 3}"#),
        ("two", #"expected one type tag, found "int", "string""#),
        ("deep", #"the value tagged "bool" is not a Bool at array[1]"#),
    ])
    func malformedEntry(key: String, problem: String) throws {
        let (_, store) = store()
        let expected = PersistenceError(
            .corruptData, subject: #"key "\#(key)" in /config/app/defaults.json"#,
            detail: "\(problem); the entry is kept until this key is written"
        )
        #expect(throws: expected) { try store.readObject(forKey: key) }
        let logs = capturingLogs { #expect(store.object(forKey: key) == nil) }
        #expect(logs == ["AppStateKit: \(expected)"])
    }

    @Test("writing another key keeps the malformed entries as they were; writing the key replaces it")
    func writesKeepDamage() throws {
        let (files, store) = store()
        try store.writeObject(2, forKey: "good")
        let rewritten = try #require(files.contents(atPath: Self.path))
        let json = try #require(try JSONSerialization.jsonObject(with: rewritten) as? [String: Any])
        let original = try #require(try JSONSerialization.jsonObject(with: Data(Self.file.utf8)) as? [String: Any])
        for key in ["bare", "half", "odd", "two", "deep", "name"] {
            #expect((json[key] as? NSObject) == (original[key] as? NSObject), "\(key) changed")
        }
        #expect(try store.readObject(forKey: "good") as? Int == 2)
        #expect(files.contentsOfDirectory(atPath: "/config/app").filter { $0.contains(".corrupt-") }.isEmpty)

        try store.writeObject(7, forKey: "half")
        #expect(try store.readObject(forKey: "half") as? Int == 7)
        #expect(throws: PersistenceError.self) { try store.readObject(forKey: "odd") }
    }

    @Test("a StoredState on a malformed entry reads its initial value and reports once; its neighbour reads its value")
    func storedStates() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: Self.path, text: #"{"App/level": {"int": 1.5}, "App/name": {"string": "kept"}}"#)
        let store = FileKeyValueStore(path: Self.path, fileSystem: files)
        let application = Application()
        var level = application.storedState(initial: 3, feature: "App", id: "level", store: store)
        let name = application.storedState(initial: "initial", feature: "App", id: "name", store: store)
        let logs = capturingLogs {
            #expect(level.value == 3)
            #expect(level.value == 3)
            #expect(name.value == "kept")
        }
        #expect(logs == [
            #"AppStateKit: corrupt data for key "App/level" in /config/app/defaults.json: the value tagged "int" is not an Int; the entry is kept until this key is written"#,
        ])
        #expect(throws: PersistenceError.self) { try level.read() }
        level.value = 4
        #expect(level.value == 4)
        #expect(name.value == "kept")
    }
}
