import AppStateKit
import AppStateKitTesting
import Foundation
import Observation
import Testing

fileprivate struct TrackedSettings: Sendable, Equatable {
    var theme = "light"
    var size = 1
}

fileprivate struct TrackedClient: Sendable {
    var baseURL = "live"
}

fileprivate extension Application {
    var trackedCount: State<Int> { state(initial: 0) }
    var trackedOther: State<Int> { state(initial: 0) }
    var trackedSettings: State<TrackedSettings> { state(initial: TrackedSettings()) }
    var trackedOptional: State<TrackedSettings?> { state(initial: TrackedSettings()) }
    var trackedClient: Dependency<TrackedClient> { dependency(TrackedClient()) }
    var trackedStored: StoredState<Int> { storedState(initial: 0, feature: "ObservationTracking", id: "stored") }
    var trackedFile: FileState<Int> { fileState(initial: 0, filename: "observation-tracking.json") }
    var trackedLater: State<Int> { state(initial: 0) }
}

/// Every property wrapper, each over one of the entries above.
fileprivate struct TrackedView {
    @AppState(\.trackedCount) var count
    @Slice(\.trackedSettings, \.theme) var theme
    @OptionalSlice(\.trackedOptional, \.theme) var optionalTheme
    @Constant(\.trackedSettings, \.size) var size
    @OptionalConstant(\.trackedOptional, \.size) var optionalSize
    @StoredState(\.trackedStored) var stored
    @FileState(\.trackedFile) var file
    @AppDependency(\.trackedClient) var client
    @DependencySlice(\.trackedClient, \.baseURL) var baseURL
    @DependencyConstant(\.trackedClient, \.baseURL) var constantBaseURL
}

/// The entries of this file; each knows one plain write to itself.
fileprivate enum TrackedEntry: CaseIterable {
    case count, other, settings, optional, client, stored, file

    func write() {
        switch self {
        case .count: Application.update(\.trackedCount) { $0 += 1 }
        case .other: Application.update(\.trackedOther) { $0 += 1 }
        case .settings: Application.update(\.trackedSettings) { $0.size += 1 }
        case .optional: Application.update(\.trackedOptional) { $0?.size += 1 }
        case .client: Application.promote(\.trackedClient, with: TrackedClient(baseURL: "promoted"))
        case .stored: TrackedView().stored += 1
        case .file: TrackedView().file += 1
        }
    }

    func read() {
        switch self {
        case .count: _ = Application.state(\.trackedCount).value
        case .other: _ = Application.state(\.trackedOther).value
        case .settings: _ = Application.state(\.trackedSettings).value
        case .optional: _ = Application.state(\.trackedOptional).value
        case .client: _ = Application.dependency(\.trackedClient)
        case .stored: _ = Application.storedState(\.trackedStored).value
        case .file: _ = Application.fileState(\.trackedFile).value
        }
    }
}

/// Every way to read an entry.
fileprivate enum ReadPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case stateValue, sliceHandle, optionalSliceHandle, dependency, dependencySliceHandle, storedState, fileState
    case appStateWrapper, sliceWrapper, optionalSliceWrapper, constantWrapper, optionalConstantWrapper
    case storedStateWrapper, fileStateWrapper, appDependencyWrapper, dependencySliceWrapper, dependencyConstantWrapper

    var testDescription: String { rawValue }

    /// The entry this path reads.
    var entry: TrackedEntry {
        switch self {
        case .stateValue, .appStateWrapper: .count
        case .sliceHandle, .sliceWrapper, .constantWrapper: .settings
        case .optionalSliceHandle, .optionalSliceWrapper, .optionalConstantWrapper: .optional
        case .dependency, .dependencySliceHandle, .appDependencyWrapper, .dependencySliceWrapper, .dependencyConstantWrapper: .client
        case .storedState, .storedStateWrapper: .stored
        case .fileState, .fileStateWrapper: .file
        }
    }

    func read() {
        let view = TrackedView()
        switch self {
        case .stateValue: _ = Application.state(\.trackedCount).value
        case .sliceHandle: _ = Application.slice(\.trackedSettings, \.theme).value
        case .optionalSliceHandle: _ = Application.slice(\.trackedOptional, \.theme).value
        case .dependency: _ = Application.dependency(\.trackedClient)
        case .dependencySliceHandle: _ = Application.dependencySlice(\.trackedClient, \.baseURL).value
        case .storedState: _ = Application.storedState(\.trackedStored).value
        case .fileState: _ = Application.fileState(\.trackedFile).value
        case .appStateWrapper: _ = view.count
        case .sliceWrapper: _ = view.theme
        case .optionalSliceWrapper: _ = view.optionalTheme
        case .constantWrapper: _ = view.size
        case .optionalConstantWrapper: _ = view.optionalSize
        case .storedStateWrapper: _ = view.stored
        case .fileStateWrapper: _ = view.file
        case .appDependencyWrapper: _ = view.client
        case .dependencySliceWrapper: _ = view.baseURL
        case .dependencyConstantWrapper: _ = view.constantBaseURL
        }
    }
}

/// Every way to change an entry.
fileprivate enum MutationPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case stateSetter, stateModify, update, stateReset, staticReset, appStateWrapper
    case sliceHandle, sliceWrapper, optionalSliceHandle, optionalSliceWrapper
    case storedSetter, storedWrite, storedReset, storedStaticReset, storedWrapper
    case fileSetter, fileWrite, fileReset, fileStaticReset, fileWrapper
    case dependencyOverride, dependencyOverrideCancel, dependencyPromote, dependencySliceHandle, dependencySliceWrapper

    var testDescription: String { rawValue }

    var entry: TrackedEntry {
        switch self {
        case .stateSetter, .stateModify, .update, .stateReset, .staticReset, .appStateWrapper: .count
        case .sliceHandle, .sliceWrapper: .settings
        case .optionalSliceHandle, .optionalSliceWrapper: .optional
        case .storedSetter, .storedWrite, .storedReset, .storedStaticReset, .storedWrapper: .stored
        case .fileSetter, .fileWrite, .fileReset, .fileStaticReset, .fileWrapper: .file
        case .dependencyOverride, .dependencyOverrideCancel, .dependencyPromote, .dependencySliceHandle, .dependencySliceWrapper: .client
        }
    }

    /// Prepares, calls `startTracking`, then performs the mutation.
    func perform(after startTracking: () -> Void) throws {
        let view = TrackedView()
        switch self {
        case .stateSetter:
            startTracking()
            var state = Application.state(\.trackedCount)
            state.value = 7
        case .stateModify:
            startTracking()
            var count = Application.state(\.trackedCount)
            count.modify { $0 += 1 }
        case .update:
            startTracking()
            Application.update(\.trackedCount) { $0 += 1 }
        case .stateReset:
            Application.update(\.trackedCount) { $0 = 3 }
            startTracking()
            Application.state(\.trackedCount).reset()
        case .staticReset:
            Application.update(\.trackedCount) { $0 = 3 }
            startTracking()
            Application.reset(\.trackedCount)
        case .appStateWrapper:
            startTracking()
            view.count = 9
        case .sliceHandle:
            startTracking()
            var theme = Application.slice(\.trackedSettings, \.theme)
            theme.value = "dark"
        case .sliceWrapper:
            startTracking()
            view.theme = "dark"
        case .optionalSliceHandle:
            startTracking()
            var theme = Application.slice(\.trackedOptional, \.theme)
            theme.value = "dark"
        case .optionalSliceWrapper:
            startTracking()
            view.optionalTheme = "dark"
        case .storedSetter:
            startTracking()
            var stored = Application.storedState(\.trackedStored)
            stored.value = 4
        case .storedWrite:
            startTracking()
            try Application.storedState(\.trackedStored).write(5)
        case .storedReset:
            view.stored = 6
            startTracking()
            Application.storedState(\.trackedStored).reset()
        case .storedStaticReset:
            view.stored = 6
            startTracking()
            Application.reset(storedState: \.trackedStored)
        case .storedWrapper:
            startTracking()
            view.stored = 8
        case .fileSetter:
            startTracking()
            var file = Application.fileState(\.trackedFile)
            file.value = 4
        case .fileWrite:
            startTracking()
            try Application.fileState(\.trackedFile).write(5)
        case .fileReset:
            view.file = 6
            startTracking()
            Application.fileState(\.trackedFile).reset()
        case .fileStaticReset:
            view.file = 6
            startTracking()
            Application.reset(fileState: \.trackedFile)
        case .fileWrapper:
            startTracking()
            view.file = 8
        case .dependencyOverride:
            startTracking()
            let override = Application.override(\.trackedClient, with: TrackedClient(baseURL: "override"))
            withExtendedLifetime(override) {}
        case .dependencyOverrideCancel:
            let override = Application.override(\.trackedClient, with: TrackedClient(baseURL: "override"))
            startTracking()
            override.cancel()
        case .dependencyPromote:
            startTracking()
            Application.promote(\.trackedClient, with: TrackedClient(baseURL: "promoted"))
        case .dependencySliceHandle:
            startTracking()
            var baseURL = Application.dependencySlice(\.trackedClient, \.baseURL)
            baseURL.value = "staging"
        case .dependencySliceWrapper:
            startTracking()
            view.baseURL = "staging"
        }
    }
}

/// Each test runs in its own isolated application, so nothing here sees another test's writes.
@Suite("Observation tracking", .isolatedApplication)
struct ObservationTrackingTests {
    @Test("reading registers interest in the entry read, and only in it", arguments: ReadPath.allCases)
    fileprivate func readRegistersThatEntryOnly(path: ReadPath) {
        let changes = trackChanges { path.read() }
        path.read()
        #expect(changes.value == 0, "a read fired the observer")
        for other in TrackedEntry.allCases where other != path.entry {
            other.write()
        }
        #expect(changes.value == 0, "a write to another entry fired the observer")
        path.entry.write()
        #expect(changes.value == 1, "a write to the entry read did not fire the observer")
    }

    @Test("an entry written while nobody had read it notifies the observers of a later read", arguments: ReadPath.allCases)
    fileprivate func writtenBeforeFirstRead(path: ReadPath) {
        // Until a read reports itself to Observation, writes skip the registrar.
        path.entry.write()
        path.entry.write()
        let changes = trackChanges { path.read() }
        #expect(changes.value == 0, "a write before the read fired the observer")
        path.entry.write()
        #expect(changes.value == 1, "a write after the first tracked read did not fire the observer")
    }

    @Test("every mutation path fires the entry's observers once and no others", arguments: MutationPath.allCases)
    fileprivate func mutationFires(path: MutationPath) throws {
        var changes: ChangeCounter?
        var others: [ChangeCounter] = []
        try path.perform {
            changes = trackChanges { path.entry.read() }
            for other in TrackedEntry.allCases where other != path.entry {
                others.append(trackChanges { other.read() })
            }
        }
        #expect(changes?.value == 1)
        #expect(others.map(\.value) == Array(repeating: 0, count: others.count))
    }

    @Test("onChange may read the changing entry, write others and create entries, without deadlock")
    func reentrantObserver() {
        let seen = Locked<[Int]>([])
        let finished = finishesOnAnotherThread {
            withObservationTracking {
                _ = Application.state(\.trackedCount).value
            } onChange: {
                // Runs on the writing thread, before the write, with no AppStateKit lock held.
                seen.withLock { $0.append(Application.state(\.trackedCount).value) }
                Application.update(\.trackedOther) { $0 += 1 }
                seen.withLock { $0.append(Application.state(\.trackedLater).value) }  // first access: creates the entry
            }
            Application.update(\.trackedCount) { $0 += 1 }
        }
        #expect(finished, "the write deadlocked")
        #expect(seen.withLock { $0 } == [0, 0])
        #expect(Application.state(\.trackedCount).value == 1)
        #expect(Application.state(\.trackedOther).value == 1)
    }

    @Test("onChange may write the entry that fired it; like any Observable, it is called again for that write")
    func observerWritesItsOwnEntry() {
        let calls = ChangeCounter()
        let finished = finishesOnAnotherThread {
            withObservationTracking {
                _ = Application.state(\.trackedCount).value
            } onChange: {
                calls.fire()
                // Observation calls onChange before it cancels the registration, so this
                // nested write calls it once more; the guard ends the recursion.
                if calls.value == 1 { Application.update(\.trackedCount) { $0 += 10 } }
            }
            Application.update(\.trackedCount) { $0 += 1 }
        }
        #expect(finished, "the write deadlocked")
        #expect(calls.value == 2)
        #expect(Application.state(\.trackedCount).value == 11)
    }

    @Test("observers fired by notifyChange may use the registry without deadlock")
    func reentrantNotifyChange() {
        _ = Application.state(\.trackedOther).value
        let finished = finishesOnAnotherThread {
            withObservationTracking {
                _ = Application.state(\.trackedCount).value
            } onChange: {
                Application.update(\.trackedOther) { $0 += 1 }
                _ = Application.state(\.trackedLater).value
            }
            Application.notifyChange()
        }
        #expect(finished, "notifyChange deadlocked")
        #expect(Application.state(\.trackedOther).value == 1)
    }

    @Test("notifyChange fires the observers of every entry, from another thread")
    func notifyChangeFiresAll() {
        let changes = [
            trackChanges { _ = Application.state(\.trackedCount).value },
            trackChanges { _ = Application.dependency(\.trackedClient) },
            trackChanges { _ = Application.storedState(\.trackedStored).value },
            trackChanges { _ = Application.fileState(\.trackedFile).value },
        ]
        #expect(finishesOnAnotherThread { Application.notifyChange() })
        #expect(changes.map(\.value) == [1, 1, 1, 1])
    }

    @Test("Observation's Observations sequence follows an entry")
    func observationsSequence() async {
        let values = await withDeadline {
            let scope = Application.currentContext
            let observed = Observations { scope.run { Application.state(\.trackedCount).value } }
            var iterator = observed.makeAsyncIterator()
            var values = [await iterator.next()]
            Application.update(\.trackedCount) { $0 = 5 }
            values.append(await iterator.next())
            return values
        }
        #expect(values == [0, 5])
    }
}
