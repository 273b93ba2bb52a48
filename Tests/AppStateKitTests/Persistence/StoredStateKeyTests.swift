import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    func keyed(_ feature: String, _ id: String) -> StoredState<String> {
        storedState(initial: "initial", feature: feature, id: id)
    }
}

private var store: InMemoryDefaults {
    Application.dependency(\.userDefaults) as! InMemoryDefaults
}

@Suite("StoredState keys", .isolatedApplication)
struct StoredStateKeyTests {
    @Test("features without / or % keep the key earlier versions and AppState wrote, byte for byte")
    func plainKeysUnchanged() {
        #expect(Application.current.keyed("App", "port").storageKey == "App/port")
        #expect(Application.current.keyed("Settings.v2", "a/b c").storageKey == "Settings.v2/a/b c")
        #expect(StoredStateKey.legacyKey(feature: "App", id: "port") == nil)
    }

    @Test("feature T with id a/b and feature T/a with id b are different entries in the store")
    func noCollision() {
        var first = Application.current.keyed("T", "a/b")
        var second = Application.current.keyed("T/a", "b")
        #expect(first.storageKey != second.storageKey)
        #expect(second.storageKey == "T%2Fa/b")
        first.value = "first"
        #expect(second.value == "initial")
        second.value = "second"
        #expect(first.value == "first")
        #expect(Application.current.keyed("50%", "x").storageKey == "50%25/x")
        #expect(Application.current.keyed("50%2F", "x").storageKey != Application.current.keyed("50/", "x").storageKey)
    }

    @Test("a legacy key that can't be another declaration's key is read while the new key holds nothing")
    func unambiguousLegacyKeyIsRead() {
        store.set("from an earlier version", forKey: "50%/rate")
        var state = Application.current.keyed("50%", "rate")
        #expect(state.value == "from an earlier version")
        state.value = "new"
        #expect(store.object(forKey: "50%25/rate") as? String == "new")
        #expect(state.value == "new")
        state.reset()
        #expect(state.value == "initial", "reset removes the legacy value too, so it can't reappear")
        #expect(store.object(forKey: "50%/rate") == nil)
    }

    @Test("a legacy key that is another declaration's key is never read as a fallback")
    func ambiguousLegacyKeyIsNotRead() {
        // "T/a/b" is the key of feature "T", id "a/b"; it may hold that entry's value.
        var other = Application.current.keyed("T", "a/b")
        other.value = "belongs to T + a/b"
        #expect(StoredStateKey.legacyKey(feature: "T/a", id: "b") == nil)
        #expect(Application.current.keyed("T/a", "b").value == "initial")
        Application.current.keyed("T/a", "b").reset()
        #expect(other.value == "belongs to T + a/b")
    }
}
