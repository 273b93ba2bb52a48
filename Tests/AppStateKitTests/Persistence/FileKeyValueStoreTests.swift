import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

@Suite("FileKeyValueStore", .isolatedApplication, .reportsAsDiagnostics)
struct FileKeyValueStoreTests {
    @Test("every property-list type round-trips through the file with its exact type")
    func typedRoundTrip() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let writer = FileKeyValueStore(path: path)
        let date = Date(timeIntervalSinceReferenceDate: 123.5)
        try writer.writeObject(true, forKey: "bool")
        try writer.writeObject(1, forKey: "int")
        try writer.writeObject(1.25, forKey: "double")
        try writer.writeObject(Float(0.75), forKey: "float")
        try writer.writeObject("text", forKey: "string")
        try writer.writeObject(Data([0, 255]), forKey: "data")
        try writer.writeObject(date, forKey: "date")
        try writer.writeObject(URL(string: "file:///tmp/x")!, forKey: "url")
        try writer.writeObject([1, 2, 3], forKey: "array")
        try writer.writeObject(["nested": ["a": true]], forKey: "dictionary")

        let reader = FileKeyValueStore(path: path)
        #expect(reader.object(forKey: "bool") as? Bool == true)
        #expect(reader.object(forKey: "bool") as? Int == nil)
        #expect(reader.object(forKey: "int") as? Int == 1)
        #expect(reader.object(forKey: "int") as? Bool == nil)
        #expect(reader.object(forKey: "double") as? Double == 1.25)
        #expect(reader.object(forKey: "float") as? Float == 0.75)
        #expect(reader.object(forKey: "string") as? String == "text")
        #expect(reader.object(forKey: "data") as? Data == Data([0, 255]))
        #expect(reader.object(forKey: "date") as? Date == date)
        #expect(reader.object(forKey: "url") as? URL == URL(string: "file:///tmp/x"))
        #expect(reader.object(forKey: "array") as? [Int] == [1, 2, 3])
        #expect(reader.object(forKey: "dictionary") as? [String: [String: Bool]] == ["nested": ["a": true]])
        #expect(try reader.keys == ["array", "bool", "data", "date", "dictionary", "double", "float", "int", "string", "url"])
    }

    @Test("a value written through another instance (another process) is seen by the next read")
    func freshness() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let first = FileKeyValueStore(path: path)
        let second = FileKeyValueStore(path: path)
        first.set("one", forKey: "k")
        #expect(second.object(forKey: "k") as? String == "one")
        second.set("two", forKey: "k")
        second.set("other", forKey: "other")
        #expect(first.object(forKey: "k") as? String == "two")
        first.set("three", forKey: "third")  // must not lose the other instance's keys
        #expect(second.object(forKey: "other") as? String == "other")
        first.removeObject(forKey: "k")
        #expect(second.object(forKey: "k") == nil)
    }

    @Test("files are 0600 and new directories 0700")
    func permissions() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("nested/deeper/defaults.json")
        try FileKeyValueStore(path: path).writeObject(1, forKey: "k")
        #expect(try TemporaryDirectory.permissions(of: path) == 0o600)
        #expect(try TemporaryDirectory.permissions(of: directory.file("nested/deeper")) == 0o700)
    }

    @Test("a corrupt file is reported, reads as empty, and is kept aside by the next write")
    func corruptFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let garbage = Data("{ not json".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        let store = FileKeyValueStore(path: path)
        #expect(throws: PersistenceError.self) { try store.readObject(forKey: "k") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)  // reading didn't touch it

        try store.writeObject(1, forKey: "k")
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("defaults.json.corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file(aside[0]))) == garbage)
        #expect(store.object(forKey: "k") as? Int == 1)
    }

    @Test("non-property-list values and unwritable locations throw errors naming the key or path")
    func errors() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = FileKeyValueStore(path: directory.file("defaults.json"))
        do {
            try store.writeObject(NSObject(), forKey: "object")
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.kind == .encodingFailed)
            #expect(error.description.contains("object"))
        }

        // A directory that is a regular file: fails for every user, root included.
        let blocker = directory.file("blocker")
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let blocked = FileKeyValueStore(path: (blocker as NSString).appendingPathComponent("defaults.json"))
        do {
            try blocked.writeObject(1, forKey: "k")
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.description.contains(blocker))
        }

    }

    @Test("a directory that may not be written (EACCES, injected: tests run as root) throws permissionDenied naming it", arguments: [
        (InMemoryFileSystem.Operation.makeDirectory, "/readonly/app", "mkdir"),
        (.create, "/readonly/app/defaults.json", "create"),
        (.lock, "/readonly/app/defaults.json.lock", "flock"),
    ])
    func permissionDenied(operation: InMemoryFileSystem.Operation, subject: String, call: String) throws {
        let files = InMemoryFileSystem()
        files.createDirectory(atPath: operation == .makeDirectory ? "/readonly" : "/readonly/app")
        files.fail(operation, at: "/readonly", with: EACCES)
        let locked = FileKeyValueStore(path: "/readonly/app/defaults.json", fileSystem: files)
        // A failure of the store file itself also names the key being written.
        let named = subject == locked.path ? "key \"k\" in \(subject)" : subject
        #expect(throws: PersistenceError(.permissionDenied, subject: named, detail: "\(call) failed (EACCES)")) {
            try locked.writeObject(1, forKey: "k")
        }
        #expect(files.contents(atPath: "/readonly/app/defaults.json") == nil)
        #expect(files.contentsOfDirectory(atPath: "/readonly/app").allSatisfy { $0.hasSuffix(".lock") })
    }

    @Test("the durability mode without fsync still writes atomically")
    func processCrashSafeMode() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = FileKeyValueStore(path: directory.file("fast.json"), durability: .processCrashSafe)
        for index in 0..<50 { try store.writeObject(index, forKey: "k") }
        #expect(FileKeyValueStore(path: directory.file("fast.json")).object(forKey: "k") as? Int == 49)
        // Each write went through a temporary file renamed over the store: none is left behind.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["fast.json", "fast.json.lock"])
    }
}
