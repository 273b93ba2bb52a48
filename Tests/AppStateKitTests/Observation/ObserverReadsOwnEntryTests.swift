import AppStateKit
import AppStateKitTesting
import Foundation
import Observation
import Testing

/// Issue 42, item 7: Observation.md promises that `onChange` "runs with no AppStateKit lock
/// held, so it may read any entry" — the one being written too. Before, a StoredState's or
/// FileState's setter ran it while holding the entry's modification lock, and a read of the
/// entry inside stopped the process.

fileprivate struct OwnSettings: Codable, Sendable, Equatable {
    var theme = "light"
    var size = 1
}

fileprivate extension Application {
    var ownState: State<OwnSettings> { state(initial: OwnSettings()) }
    var ownOther: State<Int> { state(initial: 0) }
    var ownStored: StoredState<OwnSettings> { storedState(initial: OwnSettings(), feature: "OwnEntry", id: "stored") }
    var ownFile: FileState<OwnSettings> { fileState(initial: OwnSettings(), filename: "own-entry.json") }
    var ownSync: SyncState<OwnSettings> { syncState(initial: OwnSettings(), feature: "OwnEntry", id: "sync") }
    var ownSecret: SecureState { secureState(initial: "initial", feature: "OwnEntry", id: "secret") }
    var ownClient: Dependency<OwnSettings> { dependency(OwnSettings()) }
}

fileprivate struct OwnView {
    @AppState(\.ownState) var state
    @StoredState(\.ownStored) var stored
    @FileState(\.ownFile) var file
    @SyncState(\.ownSync) var sync
    @Slice(\.ownStored, \.theme) var storedTheme
    @Slice(\.ownFile, \.theme) var fileTheme
    @Slice(\.ownSync, \.theme) var syncTheme
    @DependencySlice(\.ownClient, \.theme) var clientTheme
}

/// The entry kinds, each read the way a handle reads it.
fileprivate enum OwnKind: String, CaseIterable {
    case state, stored, file, sync, secure, dependency

    /// The entry's current size (the secret's length), read through its handle.
    func read() -> Int {
        switch self {
        case .state: Application.state(\.ownState).value.size
        case .stored: Application.storedState(\.ownStored).value.size
        case .file: Application.fileState(\.ownFile).value.size
        case .sync: Application.syncState(\.ownSync).value.size
        case .secure: Application.secureState(\.ownSecret).value?.count ?? 0
        case .dependency: Application.dependency(\.ownClient).theme.count
        }
    }
}

/// Every write path of every kind; each changes the entry from size 1 (or "initial") to
/// another value.
fileprivate enum OwnWrite: String, CaseIterable, CustomTestStringConvertible {
    case stateSetter, stateModifyInPlace, stateUpdate, stateReset, stateSlice
    case storedSetter, storedModifyInPlace, storedModify, storedApplicationUpdate, storedUpdate, storedWrite, storedReset,
         storedStaticReset, storedWrapperSetter, storedWrapperInPlace, storedSliceHandle, storedSliceWrapper,
         storedWriteDurably, storedResetDurably, storedUpdateDurably, storedExternalChange
    case fileSetter, fileModifyInPlace, fileModify, fileApplicationUpdate, fileUpdate, fileWrite, fileReset,
         fileStaticReset, fileWrapperSetter, fileWrapperInPlace, fileSliceHandle, fileSliceWrapper,
         fileWriteDurably, fileResetDurably, fileUpdateDurably, fileExternalChange
    case syncSetter, syncModifyInPlace, syncModify, syncApplicationUpdate, syncReset, syncStaticReset,
         syncWrapperSetter, syncSliceWrapper, syncWrite, syncUpdate, syncExternalChange
    case secureSetter, secureWrite, secureReset
    case dependencyOverride, dependencyOverrideCancel, dependencyPromote, dependencySliceHandle, dependencySliceWrapper

    var testDescription: String { rawValue }

    var kind: OwnKind {
        if rawValue.hasPrefix("state") { return .state }
        if rawValue.hasPrefix("stored") { return .stored }
        if rawValue.hasPrefix("file") { return .file }
        if rawValue.hasPrefix("sync") { return .sync }
        if rawValue.hasPrefix("dependency") { return .dependency }
        return .secure
    }

    /// Whether the entry shows the new value before observers hear of it: a value another
    /// process wrote (announced by `notifyChange()` or the sync store's feed) and the committed
    /// result of a sync state's `update`.
    var landsBeforeNotifying: Bool {
        [.storedExternalChange, .syncExternalChange, .syncUpdate].contains(self)
    }

    /// Whether the write is made before tracking starts (a reset needs a value to reset).
    var needsValueFirst: Bool {
        rawValue.hasSuffix("Reset") || rawValue.hasSuffix("ResetDurably") || self == .dependencyOverrideCancel
    }

    /// Gives the entry a value other than its initial one, before tracking.
    func prepare() async throws {
        switch kind {
        case .state: Application.update(\.ownState) { $0.size = 5 }
        case .stored: try Application.storedState(\.ownStored).write(OwnSettings(theme: "dark", size: 5))
        case .file: try Application.fileState(\.ownFile).write(OwnSettings(theme: "dark", size: 5))
        case .sync: try await Application.syncState(\.ownSync).write(OwnSettings(theme: "dark", size: 5))
        case .secure: try Application.secureState(\.ownSecret).write("five!")
        case .dependency: OwnWrite.override.withLock { $0 = Application.override(\.ownClient, with: OwnSettings(theme: "overridden")) }
        }
    }

    /// The override ``prepare()`` installs for `dependencyOverrideCancel`.
    static let override = Locked<Application.DependencyOverride?>(nil)

    /// Performs the write (on the calling thread, or for async paths on whichever thread runs it).
    func perform(syncStore: InMemorySyncStore) async throws {
        let view = OwnView()
        switch self {
        case .stateSetter: var state = Application.state(\.ownState); state.value = OwnSettings(size: 2)
        case .stateModifyInPlace: var state = Application.state(\.ownState); state.value.size += 1
        case .stateUpdate: Application.update(\.ownState) { $0.size = 2 }
        case .stateReset: Application.reset(\.ownState)
        case .stateSlice: var theme = Application.slice(\.ownState, \.theme); theme.value = "dark"

        case .storedSetter: var stored = Application.storedState(\.ownStored); stored.value = OwnSettings(size: 2)
        case .storedModifyInPlace: var stored = Application.storedState(\.ownStored); stored.value.size += 1
        case .storedModify: var stored = Application.storedState(\.ownStored); stored.modify { $0.size = 2 }
        case .storedApplicationUpdate: Application.update(\.ownStored) { $0.size = 2 }
        case .storedUpdate: try Application.storedState(\.ownStored).update { $0.size = 2 }
        case .storedWrite: try Application.storedState(\.ownStored).write(OwnSettings(size: 2))
        case .storedReset: Application.storedState(\.ownStored).reset()
        case .storedStaticReset: Application.reset(storedState: \.ownStored)
        case .storedWrapperSetter: view.stored = OwnSettings(size: 2)
        case .storedWrapperInPlace: view.stored.size += 1
        case .storedSliceHandle: var theme = Application.slice(\.ownStored, \.theme); theme.value = "dark"
        case .storedSliceWrapper: view.storedTheme = "dark"
        case .storedWriteDurably: try await Application.storedState(\.ownStored).writeDurably(OwnSettings(size: 2))
        case .storedResetDurably: try await Application.storedState(\.ownStored).resetDurably()
        case .storedUpdateDurably: try await Application.storedState(\.ownStored).updateDurably { $0.size = 2 }
        case .storedExternalChange:
            // Another writer changed the store; notifyChange() is what an application calls then.
            try Application.dependency(\.userDefaults).writeObject(try JSONEncoder().encode(OwnSettings(size: 2)), forKey: "OwnEntry/stored")
            Application.notifyChange()

        case .fileSetter: var file = Application.fileState(\.ownFile); file.value = OwnSettings(size: 2)
        case .fileModifyInPlace: var file = Application.fileState(\.ownFile); file.value.size += 1
        case .fileModify: var file = Application.fileState(\.ownFile); file.modify { $0.size = 2 }
        case .fileApplicationUpdate: Application.update(\.ownFile) { $0.size = 2 }
        case .fileUpdate: try Application.fileState(\.ownFile).update { $0.size = 2 }
        case .fileWrite: try Application.fileState(\.ownFile).write(OwnSettings(size: 2))
        case .fileReset: Application.fileState(\.ownFile).reset()
        case .fileStaticReset: Application.reset(fileState: \.ownFile)
        case .fileWrapperSetter: view.file = OwnSettings(size: 2)
        case .fileWrapperInPlace: view.file.size += 1
        case .fileSliceHandle: var theme = Application.slice(\.ownFile, \.theme); theme.value = "dark"
        case .fileSliceWrapper: view.fileTheme = "dark"
        case .fileWriteDurably: try await Application.fileState(\.ownFile).writeDurably(OwnSettings(size: 2))
        case .fileResetDurably: try await Application.fileState(\.ownFile).resetDurably()
        case .fileUpdateDurably: try await Application.fileState(\.ownFile).updateDurably { $0.size = 2 }
        case .fileExternalChange:
            // notifyChange() with the file as it was: observers run, and read it, all the same.
            Application.notifyChange()

        case .syncSetter: var sync = Application.syncState(\.ownSync); sync.value = OwnSettings(size: 2)
        case .syncModifyInPlace: var sync = Application.syncState(\.ownSync); sync.value.size += 1
        case .syncModify: Application.syncState(\.ownSync).modify { $0.size = 2 }
        case .syncApplicationUpdate: Application.update(\.ownSync) { $0.size = 2 }
        case .syncReset: Application.syncState(\.ownSync).reset()
        case .syncStaticReset: Application.reset(syncState: \.ownSync)
        case .syncWrapperSetter: view.sync = OwnSettings(size: 2)
        case .syncSliceWrapper: view.syncTheme = "dark"
        case .syncWrite: try await Application.syncState(\.ownSync).write(OwnSettings(size: 2))
        case .syncUpdate: _ = try await Application.syncState(\.ownSync).update { $0.size = 2 }
        case .syncExternalChange:
            // As another process would: the store's feed delivers the change.
            _ = try await syncStore.write(try JSONEncoder().encode(OwnSettings(size: 2)), forKey: "OwnEntry/sync")

        case .secureSetter: var secret = Application.secureState(\.ownSecret); secret.value = "two"
        case .secureWrite: try Application.secureState(\.ownSecret).write("two")
        case .secureReset: Application.secureState(\.ownSecret).reset()

        case .dependencyOverride:
            let override = Application.override(\.ownClient, with: OwnSettings(theme: "overridden"))
            withExtendedLifetime(override) {}
        case .dependencyOverrideCancel: await OwnWrite.override.withLock { $0 }?.cancel()
        case .dependencyPromote: Application.promote(\.ownClient, with: OwnSettings(theme: "promoted"))
        case .dependencySliceHandle: var theme = Application.dependencySlice(\.ownClient, \.theme); theme.value = "dark"
        case .dependencySliceWrapper: view.clientTheme = "dark"
        }
    }
}

@Suite("onChange may read the entry being written, for every kind and write path", .isolatedApplication)
struct ObserverReadsOwnEntryTests {
    @Test("onChange reads the entry it observes, with no lock held, and sees the value before the write", arguments: OwnWrite.allCases)
    fileprivate func readsOwnEntry(write: OwnWrite) async throws {
        let syncStore = installStore()
        Application.promote(\.keychain, with: Keychain(initialValues: [:]))
        if write.needsValueFirst { try await write.prepare() }
        let kind = write.kind
        let before = kind.read()
        // What onChange read, and whether a write of another entry from inside it went through.
        let seen = Locked<[Int]>([])
        // A change from the sync store's feed is announced on the feed's thread, outside this
        // test's isolated application: the observer enters it.
        let scope = Application.currentContext
        withObservationTracking {
            _ = kind.read()
        } onChange: {
            scope.run {
                seen.withLock { $0.append(kind.read()) }
                Application.update(\.ownOther) { $0 += 1 }  // another entry: no lock of the written one stops it
            }
        }
        let finished = await withDeadline {
            do {
                try await write.perform(syncStore: syncStore)
                return true
            } catch {
                Issue.record("the write failed: \(error)")
                return true
            }
        }
        #expect(finished == true, "the write deadlocked")
        #expect(await eventually { !seen.withLock { $0 }.isEmpty }, "onChange never ran")
        let reads = seen.withLock { $0 }
        #expect(reads.count == 1)
        if write.landsBeforeNotifying {
            // A value that arrives from outside (or from the store's commit) is shown first,
            // then announced: onChange reads it.
            #expect(reads.first != before)
        } else {
            // Called before the write lands: the value from before it.
            #expect(reads.first == before)
        }
        #expect(await eventually { Application.state(\.ownOther).value == 1 })
    }

    @Test("onChange may write the entry that fired it, for a stored, file and sync state")
    func writesOwnEntry() async throws {
        _ = installStore()
        for kind in [OwnKind.stored, .file, .sync] {
            let calls = ChangeCounter()
            let finished = finishesOnAnotherThread(within: .seconds(60)) {
                withObservationTracking {
                    _ = kind.read()
                } onChange: {
                    calls.fire()
                    guard calls.value == 1 else { return }
                    switch kind {
                    case .stored: Application.update(\.ownStored) { $0.size += 10 }
                    case .file: Application.update(\.ownFile) { $0.size += 10 }
                    default: Application.update(\.ownSync) { $0.size += 10 }
                    }
                }
                switch kind {
                case .stored: Application.update(\.ownStored) { $0.size += 1 }
                case .file: Application.update(\.ownFile) { $0.size += 1 }
                default: Application.update(\.ownSync) { $0.size += 1 }
                }
            }
            #expect(finished, "the write of \(kind) deadlocked")
            #expect(calls.value == 2)
            #expect(kind.read() == 12)
        }
    }
}
