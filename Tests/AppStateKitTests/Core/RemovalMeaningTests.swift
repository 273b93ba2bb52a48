import Foundation
import Testing
import AppStateKitTesting
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var meaningState: State<Int> { state(initial: 1, feature: "Meaning", id: "state") }
    var meaningStored: StoredState<Int> { storedState(initial: 1, feature: "Meaning", id: "stored") }
    var meaningFile: FileState<Int> { fileState(initial: 1, filename: "meaning.json", isBase64Encoded: false) }
    var meaningSync: SyncState<Int> { syncState(initial: 1, feature: "Meaning", id: "sync") }
    var meaningSecret: SecureState { secureState(initial: "initial", feature: "Meaning", id: "secret") }
}

/// A conforming type of the user's own, which is no registry entry.
private struct OwnState: MutableApplicationState {
    var value = 0
    mutating func reset() { value = 0 }
}

/// `Application.remove(state:)` means the same for every kind of entry — the in-memory entry
/// goes, the persisted value stays — and `reset` is the other half: the persisted value goes,
/// the entry stays.
@Suite("Removal means the same for every kind", .isolatedApplication)
struct RemovalMeaningTests {
    @Test("removing a State, StoredState, FileState, SyncState or SecureState drops the entry and keeps what it persisted")
    func removalKeepsPersistedValues() async throws {
        let registry = Application.current.registry
        var state = Application.state(\.meaningState)
        state.value = 2
        var stored = Application.storedState(\.meaningStored)
        stored.value = 2
        var file = Application.fileState(\.meaningFile)
        file.value = 2
        try await Application.syncState(\.meaningSync).write(2)
        var secret = Application.secureState(\.meaningSecret)
        secret.value = "s3cret"

        let before = registry.count
        #expect(Application.remove(state: state))
        #expect(Application.remove(state: stored))
        #expect(Application.remove(state: file))
        #expect(Application.remove(state: Application.syncState(\.meaningSync)))
        #expect(Application.remove(state: secret), "a SecureState is removed like every other entry")
        #expect(registry.count == before - 5)

        // Fresh entries: the State starts from its initial value, the others read what was persisted.
        #expect(Application.state(\.meaningState).value == 1)
        #expect(Application.storedState(\.meaningStored).value == 2)
        #expect(Application.fileState(\.meaningFile).value == 2)
        #expect(Application.syncState(\.meaningSync).value == 2)
        #expect(Application.secureState(\.meaningSecret).value == "s3cret")
        #expect(registry.count == before)
    }

    @Test("reset deletes what every kind persisted and keeps the entry")
    func resetDeletesPersistedValues() async throws {
        let registry = Application.current.registry
        var stored = Application.storedState(\.meaningStored)
        stored.value = 2
        var file = Application.fileState(\.meaningFile)
        file.value = 2
        try await Application.syncState(\.meaningSync).write(2)
        var secret = Application.secureState(\.meaningSecret)
        secret.value = "s3cret"
        let before = registry.count

        Application.reset(\.meaningStored)
        Application.reset(\.meaningFile)
        try await Application.syncState(\.meaningSync).resetDurably()
        Application.reset(\.meaningSecret)
        #expect(registry.count == before, "a reset keeps every entry")

        #expect(Application.storedState(\.meaningStored).value == 1)
        #expect(Application.dependency(\.userDefaults).object(forKey: "Meaning/stored") == nil)
        #expect(Application.fileState(\.meaningFile).value == 1)
        #expect(try Application.fileState(\.meaningFile).read() == 1)
        #expect(Application.syncState(\.meaningSync).value == 1)
        #expect(try await Application.syncState(\.meaningSync).read() == 1)
        #expect(Application.secureState(\.meaningSecret).value == "initial")
        #expect(try Application.dependency(\.keychain).read("Meaning.secret") == nil)
    }

    @Test("removing a conforming type of your own says why it removed nothing")
    func removingNoEntryIsReported() {
        let messages = capturingLogs {
            #expect(!Application.remove(state: OwnState()))
        }
        #expect(messages == [
            "AppStateKit: Application.remove(state:) removed nothing: OwnState is no registry entry; "
                + "only State, StoredState, FileState, SyncState and SecureState handles can be removed",
        ])
    }

    @Test("removing an entry that is already gone is no error")
    func removingTwiceIsQuiet() {
        let state = Application.state(\.meaningState)
        #expect(Application.remove(state: state))
        let messages = capturingLogs {
            #expect(!Application.remove(state: state))
        }
        #expect(messages.isEmpty, "only a debug message, while debug logging is on")
    }
}
