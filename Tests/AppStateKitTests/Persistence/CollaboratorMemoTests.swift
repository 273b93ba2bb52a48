import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var memoStored: StoredState<String> { storedState(initial: "initial", feature: "CollaboratorMemo", id: "stored") }
    var memoFile: FileState<Int> { fileState(initial: 0, path: "/memo", filename: "value.json") }
    var memoUnrelated: Dependency<Int> { dependency(0, feature: "CollaboratorMemo", id: "unrelated") }
}

/// A store holding `value` under the memo test's key.
private func store(holding value: String) -> InMemoryDefaults {
    let store = InMemoryDefaults()
    store.set(value, forKey: "CollaboratorMemo/stored")
    return store
}

/// A persisted entry remembers the `\.userDefaults` / `\.fileManager` it last resolved; every
/// test first reads once (so the memo is filled), then changes what the application resolves
/// and checks that the next read follows.
@Suite("Persisted entries resolve their collaborators again after every change", .isolatedApplication)
struct CollaboratorMemoTests {
    @Test("a StoredState read after a promotion of \\.userDefaults reads the new store")
    func storedFollowsPromotion() {
        Application.promote(\.userDefaults, with: store(holding: "first"))
        let stored = Application.storedState(\.memoStored)
        #expect(stored.value == "first")
        #expect(stored.value == "first")
        Application.promote(\.userDefaults, with: store(holding: "second"))
        #expect(stored.value == "second")
        #expect(Application.storedState(\.memoStored).value == "second")
    }

    @Test("a global override of \\.userDefaults redirects reads; cancelling it reads the original store again")
    func storedFollowsGlobalOverride() {
        Application.promote(\.userDefaults, with: store(holding: "original"))
        let stored = Application.storedState(\.memoStored)
        #expect(stored.value == "original")
        let first = Application.override(\.userDefaults, with: store(holding: "first override"))
        #expect(stored.value == "first override")
        let second = Application.override(\.userDefaults, with: store(holding: "second override"))
        #expect(stored.value == "second override")
        first.cancel()
        #expect(stored.value == "second override")
        second.cancel()
        #expect(stored.value == "original")
    }

    @Test("a StoredState write after a promotion goes to the new store")
    func storedWritesFollowPromotion() {
        let first = store(holding: "first")
        Application.promote(\.userDefaults, with: first)
        var stored = Application.storedState(\.memoStored)
        #expect(stored.value == "first")
        let second = InMemoryDefaults()
        Application.promote(\.userDefaults, with: second)
        stored.value = "written"
        #expect(second.object(forKey: "CollaboratorMemo/stored") as? String == "written")
        #expect(first.object(forKey: "CollaboratorMemo/stored") as? String == "first")
    }

    @Test("after \\.userDefaults is removed and declared again, reads use the new entry's store")
    func storedFollowsRemoval() {
        Application.promote(\.userDefaults, with: store(holding: "before removal"))
        let stored = Application.storedState(\.memoStored)
        #expect(stored.value == "before removal")
        #expect(Application.remove(dependency: \.userDefaults))
        // A fresh entry, promoted once: its version may equal the removed entry's.
        Application.promote(\.userDefaults, with: store(holding: "after removal"))
        #expect(stored.value == "after removal")
    }

    @Test("a scoped override of \\.userDefaults applies to reads inside the scope only, after reads outside it")
    func storedFollowsScopedOverride() {
        Application.promote(\.userDefaults, with: store(holding: "registry"))
        let stored = Application.storedState(\.memoStored)
        #expect(stored.value == "registry")
        Application.withOverrides({ $0.override(\.userDefaults, with: store(holding: "scoped") as any UserDefaultsManaging) }) {
            #expect(stored.value == "scoped")
            #expect(stored.value == "scoped")
        }
        #expect(stored.value == "registry")
        Application.withOverrides({ $0.override(\.memoUnrelated, with: 1) }) {
            #expect(stored.value == "registry")
            Application.withOverrides({ $0.override(\.userDefaults, with: store(holding: "nested") as any UserDefaultsManaging) }) {
                #expect(stored.value == "nested")
            }
            #expect(stored.value == "registry")
        }
    }

    @Test("observers of a StoredState read are told when \\.userDefaults is promoted, also on memoised reads")
    func storedObservationSeesPromotion() {
        Application.promote(\.userDefaults, with: store(holding: "first"))
        let stored = Application.storedState(\.memoStored)
        #expect(stored.value == "first")
        let changes = trackChanges { _ = stored.value }
        Application.promote(\.userDefaults, with: store(holding: "second"))
        #expect(changes.value == 1)
    }

    @Test("a FileState read follows promotions and global overrides of \\.fileManager")
    func fileFollowsFileManager() {
        // Two writes here and one in `second`, so the two in-memory files never share a stamp
        // (each in-memory file system numbers and dates its files from the same start).
        let first = InMemoryFileSystem()
        Application.promote(\.fileManager, with: first as any FileManaging)
        var file = Application.fileState(\.memoFile)
        file.value = 9
        file.value = 10
        #expect(file.value == 10)

        let second = InMemoryFileSystem()
        Application.promote(\.fileManager, with: second as any FileManaging)
        #expect(file.value == 0)
        file.value = 2
        #expect(file.value == 2)

        let override = Application.override(\.fileManager, with: first as any FileManaging)
        #expect(file.value == 10)
        override.cancel()
        #expect(file.value == 2)

        Application.withOverrides({ $0.override(\.fileManager, with: first as any FileManaging) }) {
            #expect(file.value == 10)
        }
        #expect(file.value == 2)
    }
}
