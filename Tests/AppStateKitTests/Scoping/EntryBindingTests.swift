import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var boundStored: StoredState<String> { storedState(initial: "initial", feature: "EntryBinding", id: "stored") }
    var boundOptionalStored: StoredState<String?> { storedState(feature: "EntryBinding", id: "optional") }
    var boundFile: FileState<[String]> {
        fileState(initial: [], path: EntryBindingTests.declaredDirectory, filename: "file.json", isBase64Encoded: false)
    }
    var boundOptionalFile: FileState<String?> { fileState(path: EntryBindingTests.declaredDirectory, filename: "optional.json") }
    var bindingTracked: Dependency<BindingTracked> { dependency(BindingTracked()) }
}

/// A dependency whose release a test can observe through a weak reference.
private final class BindingTracked: Sendable {}

/// Wrappers resolve their declaration on the current application at each access.
private struct WrappedSettings: Sendable {
    @StoredState(\.boundStored) var stored
    @FileState(\.boundFile) var file
}

/// Makes the calling thread's lookup memo move on to another registry, so that only handles
/// keep an isolated application alive.
private func touchAnotherRegistry() {
    _ = Application().state(initial: 0, feature: "EntryBindingChurn", id: "x").value
}

private func sandboxRoot() -> String {
    (Application.dependency(\.fileManager) as? SandboxFileManager)?.root ?? ""
}

/// Every test runs in an isolated application (the "outer" one) and opens another isolation
/// scope (the "inner" one): a handle must act on the application it was taken from, never on
/// whichever one serves the calling task.
@Suite("Persisted entries are bound to their application", .isolatedApplication)
struct EntryBindingTests {
    /// Only ever reached through sandboxes; checked never to exist.
    static let declaredDirectory = (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKit-binding-\(UUID().uuidString)")

    @Test("a StoredState handle taken inside an isolation scope keeps using that application after the scope")
    func storedHandleOutlivesItsScope() throws {
        var (stored, optional) = Application.withIsolatedApplication {
            var stored = Application.storedState(\.boundStored)
            var optional = Application.storedState(\.boundOptionalStored)
            stored.value = "inner"
            optional.value = "inner"
            return (stored, optional)
        }
        #expect(stored.value == "inner")
        #expect(optional.value == "inner")
        stored.value = "after the scope"
        optional.value = nil
        #expect(stored.value == "after the scope")
        #expect(optional.value == nil)
        try stored.update { $0 += "!" }
        #expect(stored.value == "after the scope!")
        // The outer application never saw any of it.
        #expect(Application.storedState(\.boundStored).value == "initial")
        #expect(Application.storedState(\.boundOptionalStored).value == nil)
        #expect((Application.dependency(\.userDefaults) as? InMemoryDefaults)?.keys == [])
    }

    @Test("a StoredState handle taken outside an isolation scope writes its own application's store inside it")
    func storedHandleUsedInsideAnotherScope() {
        var stored = Application.storedState(\.boundStored)
        var optional = Application.storedState(\.boundOptionalStored)
        Application.withIsolatedApplication {
            stored.value = "outer write"
            optional.value = "outer write"
            #expect(stored.value == "outer write")
            #expect(Application.storedState(\.boundStored).value == "initial")
            #expect(Application.storedState(\.boundOptionalStored).value == nil)
        }
        #expect(Application.storedState(\.boundStored).value == "outer write")
        #expect(Application.storedState(\.boundOptionalStored).value == "outer write")
        Application.withIsolatedApplication {
            stored.reset()
            optional.value = nil
        }
        #expect(Application.storedState(\.boundStored).value == "initial")
        #expect(Application.storedState(\.boundOptionalStored).value == nil)
    }

    @Test("a FileState handle taken inside an isolation scope keeps using that application's sandbox after the scope")
    func fileHandleOutlivesItsScope() throws {
        let outerRoot = sandboxRoot()
        var (file, optional) = Application.withIsolatedApplication {
            var file = Application.fileState(\.boundFile)
            var optional = Application.fileState(\.boundOptionalFile)
            file.value = ["inner"]
            optional.value = "inner"
            return (file, optional)
        }
        file.value = ["after the scope"]
        optional.value = "after the scope"
        #expect(file.value == ["after the scope"])
        #expect(optional.value == "after the scope")
        try file.update { $0.append("updated") }
        #expect(file.value == ["after the scope", "updated"])
        optional.value = nil
        #expect(optional.value == nil)
        // Neither the outer application's sandbox nor the declared location was written.
        #expect(Application.fileState(\.boundFile).value == [])
        #expect(Application.fileState(\.boundOptionalFile).value == nil)
        #expect(!FileManager.default.fileExists(atPath: outerRoot + Self.declaredDirectory))
        #expect(!FileManager.default.fileExists(atPath: Self.declaredDirectory))
    }

    @Test("a FileState handle taken outside an isolation scope writes its own application's file inside it")
    func fileHandleUsedInsideAnotherScope() {
        var file = Application.fileState(\.boundFile)
        var optional = Application.fileState(\.boundOptionalFile)
        Application.withIsolatedApplication {
            file.value = ["outer write"]
            optional.value = "outer write"
            #expect(Application.fileState(\.boundFile).value == [])
            #expect(Application.fileState(\.boundOptionalFile).value == nil)
        }
        #expect(Application.fileState(\.boundFile).value == ["outer write"])
        #expect(Application.fileState(\.boundOptionalFile).value == "outer write")
        Application.withIsolatedApplication {
            file.reset()
            optional.value = nil
        }
        #expect(Application.fileState(\.boundFile).value == [])
        #expect(Application.fileState(\.boundOptionalFile).value == nil)
        #expect(!FileManager.default.fileExists(atPath: Self.declaredDirectory))
    }

    @Test("change streams read the application of the handle they were made from, in any scope")
    func streamsFollowTheirApplication() async {
        let (storedValues, fileValues, storedEntry) = Application.withIsolatedApplication {
            var stored = Application.storedState(\.boundStored)
            var file = Application.fileState(\.boundFile)
            stored.value = "inner"
            file.value = ["inner"]
            return (
                Application.values(of: \.boundStored, pollInterval: nil),
                Application.values(of: \.boundFile, pollInterval: nil),
                Application.storedState(\.boundStored).entry
            )
        }
        var storedIterator = storedValues.makeAsyncIterator()
        #expect(await storedIterator.next() == "inner")
        // The scope's end removed its sandbox's files: the inner file state reads its initial
        // value, not the outer application's file.
        var fileIterator = fileValues.makeAsyncIterator()
        var outerFile = Application.fileState(\.boundFile)
        outerFile.value = ["outer"]
        #expect(await fileIterator.next() == [])
        // Polling for other processes' writes looks at the same store.
        #expect(storedEntry.externalVersion() == .stored(PropertyListValue("inner")))

        var outer = Application.storedState(\.boundStored)
        outer.value = "outer"
        let outerValues = Application.values(of: \.boundStored, pollInterval: nil)
        let outerFileValues = Application.values(of: \.boundFile, pollInterval: nil)
        await Application.withIsolatedApplication {
            var iterator = outerValues.makeAsyncIterator()
            #expect(await iterator.next() == "outer")
            var fileIterator = outerFileValues.makeAsyncIterator()
            #expect(await fileIterator.next() == ["outer"])
        }
    }

    @Test("the @StoredState and @FileState wrappers act on the application serving the caller at each access")
    func wrappersFollowTheCurrentApplication() {
        let settings = WrappedSettings()
        Application.withIsolatedApplication {
            settings.stored = "inner"
            settings.file = ["inner"]
            #expect(settings.stored == "inner")
            #expect(settings.file == ["inner"])
        }
        #expect(settings.stored == "initial")
        #expect(settings.file == [])
        settings.stored = "outer"
        #expect(Application.storedState(\.boundStored).value == "outer")
    }

    @Test("a standalone application's entries use its own store and file manager, not the current ones")
    func standaloneApplication() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = InMemoryDefaults()
        let application = Application { $0.userDefaults.entry(in: $0)?.promote(to: store) }
        var stored = application.boundStored
        stored.value = "standalone"
        #expect(store.object(forKey: "EntryBinding/stored") as? String == "standalone")
        #expect(Application.storedState(\.boundStored).value == "initial")

        var file = application.fileState(initial: 0, path: directory.path, filename: "standalone.json")
        file.value = 7
        #expect(FileManager.default.fileExists(atPath: directory.file("standalone.json")))
    }

    @Test("promoting the store of the owning application redirects its existing entries; a scoped override of the calling task applies too")
    func promotionAndScopedOverrides() {
        var stored = Application.storedState(\.boundStored)
        let promoted = InMemoryDefaults()
        Application.promote(\.userDefaults, with: promoted)
        stored.value = "promoted"
        #expect(promoted.object(forKey: "EntryBinding/stored") as? String == "promoted")

        let scoped = InMemoryDefaults()
        Application.withOverrides({ $0.override(\.userDefaults, with: scoped as any UserDefaultsManaging) }) {
            stored.value = "scoped"
        }
        #expect(scoped.object(forKey: "EntryBinding/stored") as? String == "scoped")
        #expect(stored.value == "promoted")
    }

    @Test("persisted handles keep their isolated application alive; the last one releases it and its sandbox")
    func handlesReleaseTheirApplication() {
        weak var tracked: BindingTracked?
        var root = ""
        var handles: (stored: Application.StoredState<String>, file: Application.FileState<[String]>)? = Application.withIsolatedApplication {
            tracked = Application.dependency(\.bindingTracked)
            root = sandboxRoot()
            var stored = Application.storedState(\.boundStored)
            var file = Application.fileState(\.boundFile)
            stored.value = "kept"
            file.value = ["kept"]
            return (stored: stored, file: file)
        }
        touchAnotherRegistry()
        #expect(!root.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: root), "the sandbox is removed when the scope ends")
        #expect(handles?.stored.value == "kept")
        handles?.file.value = ["written after the scope"]
        #expect(handles?.file.value == ["written after the scope"])
        #expect(FileManager.default.fileExists(atPath: root + Self.declaredDirectory + "/file.json"))
        touchAnotherRegistry()
        #expect(tracked != nil)
        handles = nil
        #expect(tracked == nil, "the isolated application and its entries are released with the last handle")
        #expect(!FileManager.default.fileExists(atPath: root), "what was written after the scope goes with the application")
    }

    @Test("an entry's owner doesn't keep its application alive, and says so once it is gone")
    func ownerIsWeak() {
        var application: Application? = Application()
        let owner = EntryOwner(application!)
        #expect(owner.dependencyIfAlive(\.bindingTracked) != nil)
        application = nil
        touchAnotherRegistry()
        #expect(owner.dependencyIfAlive(\.bindingTracked) == nil)
    }

    @Test("a task that outlives its isolation scope writes into the scope's sandbox, which is removed when the application is released")
    func unstructuredTaskAfterTheScope() async throws {
        let gate = Gate()
        weak var tracked: BindingTracked?
        let (root, task) = Application.withIsolatedApplication {
            tracked = Application.dependency(\.bindingTracked)
            let task = Task {
                await gate.wait()
                var file = Application.fileState(\.boundFile)
                file.value = ["late"]
                let written = FileManager.default.fileExists(atPath: sandboxRoot() + Self.declaredDirectory + "/file.json")
                touchAnotherRegistry()
                return written
            }
            return (sandboxRoot(), task)
        }
        touchAnotherRegistry()
        #expect(!FileManager.default.fileExists(atPath: root))
        gate.open()
        #expect(await task.value, "the late write lands in the isolated application's sandbox")
        // The finished task lets go of the scope; wait (bounded) for the release to happen.
        for _ in 0..<200 where tracked != nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(tracked == nil)
        #expect(!FileManager.default.fileExists(atPath: root), "nothing is left on disk")
        #expect(!FileManager.default.fileExists(atPath: Self.declaredDirectory))
    }

    @Test("an isolated application's sandbox writes without fsync")
    func sandboxIsNotDurable() throws {
        let files = try #require(Application.dependency(\.fileManager) as? SandboxFileManager)
        #expect(!files.files.isDurable)
        var file = Application.fileState(\.boundFile)
        file.value = ["cheap"]
        #expect(Application.fileState(\.boundFile).value == ["cheap"])
        #expect(try TemporaryDirectory.permissions(of: files.mapped(file.path)) == 0o600)
    }

    @Test("description shows the path a file state actually writes: inside the sandbox for an isolated application")
    func descriptionShowsRealPaths() {
        var file = Application.fileState(\.boundFile)
        var stored = Application.storedState(\.boundStored)
        file.value = ["described"]
        stored.value = "described"
        let lines = Application.description.split(separator: "\n").map(String.init)
        let sandboxed = sandboxRoot() + Self.declaredDirectory + "/file.json"
        #expect(lines.contains("FileState<Swift.Array<Swift.String>> \(sandboxed) = [\"described\"]"))
        #expect(lines.contains("StoredState<Swift.String> EntryBinding.stored (EntryBinding/stored in memory) = described"))
    }
}

/// A one-shot signal an async test opens for a waiting task.
private final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
