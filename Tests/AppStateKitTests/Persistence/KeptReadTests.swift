import AppStateKitTesting
import Foundation
import Observation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var keptStored: StoredState<Int> { storedState(initial: 0, feature: "KeptRead", id: "stored") }
    subscript(keptFile directory: String) -> FileState<Int> { fileState(initial: 0, path: directory, filename: "kept.json") }
}

/// A persisted read keeps what it decoded in its entry (`StoredStateEntry.Decoded`,
/// `FileStateEntry.Known`); the next read returns it while the store or the file's freshness
/// says nothing changed, and resolves its collaborator (`\.userDefaults`, `\.fileManager`) as
/// every read does. Each test reads twice first, so the second read was answered from the kept
/// value, then changes something and checks that the next read follows.
@Suite("Kept persisted reads follow writes on other threads, overrides and observation", .isolatedApplication)
struct KeptReadTests {
    /// A store in its own in-memory file system, holding `value` under the test key.
    private static func store(holding value: Int?) throws -> FileKeyValueStore {
        let store = FileKeyValueStore(path: "/kept/defaults.json", fileSystem: InMemoryFileSystem())
        if let value { try store.writeObject(value, forKey: "KeptRead/stored") }
        return store
    }

    @Test("StoredState: a write on another thread is seen by this thread's next read of a kept value")
    func storedWriteOnAnotherThread() throws {
        Application.promote(\.userDefaults, with: try Self.store(holding: 1))
        let reader = Application.storedState(\.keptStored)
        #expect(reader.value == 1)
        #expect(reader.value == 1)
        #expect(finishesOnAnotherThread {
            var writer = Application.storedState(\.keptStored)
            writer.value = 2
        })
        #expect(reader.value == 2)
        #expect(Application.storedState(\.keptStored).value == 2)
    }

    @Test("FileState: a write on another thread is seen by this thread's next read of a kept value")
    func fileWriteOnAnotherThread() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = \Application.[keptFile: directory.path]
        var first = Application.fileState(file)
        first.value = 1
        let reader = Application.fileState(file)
        #expect(reader.value == 1)
        #expect(reader.value == 1)
        #expect(finishesOnAnotherThread {
            var writer = Application.fileState(file)
            writer.value = 2
        })
        #expect(reader.value == 2)
        #expect(Application.fileState(file).value == 2)
    }

    @Test("StoredState: a scoped override between two reads is honoured, and the kept value serves again after it")
    func storedScopedOverride() throws {
        Application.promote(\.userDefaults, with: try Self.store(holding: 1))
        let handle = Application.storedState(\.keptStored)
        #expect(handle.value == 1)
        #expect(handle.value == 1)
        let scoped = try Self.store(holding: 7)
        Application.withOverrides({ $0.override(\.userDefaults, with: scoped as any UserDefaultsManaging) }) {
            #expect(handle.value == 7)
            #expect(handle.value == 7)
            #expect(Application.storedState(\.keptStored).value == 7)
        }
        #expect(handle.value == 1)
    }

    @Test("StoredState: a global override and its cancellation between two reads are honoured")
    func storedGlobalOverride() throws {
        Application.promote(\.userDefaults, with: try Self.store(holding: 1))
        let handle = Application.storedState(\.keptStored)
        #expect(handle.value == 1)
        #expect(handle.value == 1)
        let token = Application.override(\.userDefaults, with: try Self.store(holding: 3))
        #expect(handle.value == 3)
        #expect(handle.value == 3)
        token.cancel()
        #expect(handle.value == 1)
    }

    @Test("StoredState: a kept handle of one application, read inside another application's scope, reads its own store")
    func storedOtherApplication() throws {
        Application.promote(\.userDefaults, with: try Self.store(holding: 1))
        let outer = Application.storedState(\.keptStored)
        #expect(outer.value == 1)
        #expect(outer.value == 1)
        try Application.withIsolatedApplication {
            Application.promote(\.userDefaults, with: try Self.store(holding: 5))
            let inner = Application.storedState(\.keptStored)
            #expect(inner.value == 5)
            #expect(inner.value == 5)
            #expect(outer.value == 1)
            #expect(outer.value == 1)
            #expect(inner.value == 5)
        }
        #expect(outer.value == 1)
    }

    @Test("StoredState: a handle read outside its own application keeps its read too, and follows writes")
    func storedOutsideItsApplication() throws {
        let files = InMemoryFileSystem()
        let path = "/kept/isolated.json"
        let store = FileKeyValueStore(path: path, fileSystem: files)
        try store.writeObject(1, forKey: "KeptRead/stored")
        let handle = Application.withIsolatedApplication {
            Application.promote(\.userDefaults, with: store)
            return Application.storedState(\.keptStored)
        }
        #expect(handle.value == 1)
        #expect(handle.value == 1)
        files.fail(.stat, at: path, with: EIO)
        // A stat would now throw: these reads are answered from the kept value.
        for _ in 0..<5 { #expect(try handle.read() == 1) }
        files.removeFailures()
        try store.writeObject(2, forKey: "KeptRead/stored")
        #expect(handle.value == 2)
    }

    @Test("FileState: a scoped override of \\.fileManager between two reads is honoured, and the kept value serves again after it")
    func fileScopedOverride() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = \Application.[keptFile: directory.path]
        var writer = Application.fileState(file)
        writer.value = 4
        let handle = Application.fileState(file)
        #expect(handle.value == 4)
        #expect(handle.value == 4)
        let files = InMemoryFileSystem()
        try files.writeAtomically(Data("9".utf8), toFile: handle.path)
        Application.withOverrides({ $0.override(\.fileManager, with: files as any FileManaging) }) {
            #expect(handle.value == 9)
            #expect(handle.value == 9)
        }
        #expect(handle.value == 4)
    }

    @Test("a read answered from the kept value registers the entry and its collaborator with observation tracking")
    func keptReadsAreObserved() throws {
        Application.promote(\.userDefaults, with: try Self.store(holding: 1))
        let handle = Application.storedState(\.keptStored)
        #expect(handle.value == 1)
        let written = trackChanges { _ = handle.value }
        var writer = Application.storedState(\.keptStored)
        writer.value = 2
        #expect(written.value == 1)

        #expect(handle.value == 2)
        let promoted = trackChanges { _ = handle.value }
        Application.promote(\.userDefaults, with: try Self.store(holding: 3))
        #expect(promoted.value == 1)
        #expect(handle.value == 3)
    }
}
