import Foundation
import Testing
import AppStateKitTesting
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

// Compound assignments through a handle's `value` or a wrapper's `wrappedValue` (`+= 1`,
// `append`) must be one atomic step: 8 tasks × N increments always count 8N.

private struct Tally: Equatable, Sendable, Codable {
    var count = 0
    var note: String? = nil
}

private extension Application {
    var inPlaceState: State<Int> { state(initial: 0) }
    var inPlaceList: State<[Int]> { state(initial: []) }
    var inPlaceWrapped: State<Int> { state(initial: 0) }
    var inPlaceTally: State<Tally> { state(initial: Tally()) }
    var inPlaceOptionalTally: State<Tally?> { state(initial: Tally()) }
    var inPlaceStored: StoredState<Int> { storedState(initial: 0, feature: "InPlace", id: "stored") }
    var inPlaceStoredWrapped: StoredState<Int> { storedState(initial: 0, feature: "InPlace", id: "storedWrapped") }
    var inPlaceStoredTally: StoredState<Tally> { storedState(initial: Tally(), feature: "InPlace", id: "storedTally") }
    var inPlaceFile: FileState<[Int]> { fileState(initial: [], filename: "in-place.json", isBase64Encoded: false) }
    var inPlaceFileWrapped: FileState<Int> { fileState(initial: 0, filename: "in-place-wrapped.json", isBase64Encoded: false) }
}

private struct Wrappers: Sendable {
    @AppState(\.inPlaceWrapped) var count
    @Slice(\.inPlaceTally, \.count) var sliceCount
    @OptionalSlice(\.inPlaceOptionalTally, \.count) var optionalCount
    @StoredState(\.inPlaceStoredWrapped) var stored
    @FileState(\.inPlaceFileWrapped) var file
}

/// Runs `body(task, iteration)` `iterations` times in each of `tasks` concurrent child tasks.
private func concurrently(tasks: Int = 8, iterations: Int, _ body: @escaping @Sendable (Int, Int) -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
            group.addTask {
                for iteration in 0..<iterations { body(task, iteration) }
            }
        }
    }
}

@Suite("In-place mutation", .isolatedApplication)
struct InPlaceMutationTests {
    static let iterations = 5_000
    /// An isolated application's stored states live in memory.
    static let storedIterations = 2_000
    /// Each file-state write is a file written and synced: fewer of them.
    static let persistedIterations = 40

    @Test("state.value += 1 from 8 tasks loses no increment")
    func stateIncrement() async {
        await concurrently(iterations: Self.iterations) { _, _ in
            var counter = Application.state(\.inPlaceState)
            counter.value += 1
        }
        #expect(Application.state(\.inPlaceState).value == 8 * Self.iterations)
    }

    @Test("state.value.append(x) from 8 tasks loses no element")
    func stateAppend() async {
        await concurrently(iterations: Self.iterations) { task, iteration in
            var list = Application.state(\.inPlaceList)
            list.value.append(task * Self.iterations + iteration)
        }
        let list = Application.state(\.inPlaceList).value
        #expect(list.count == 8 * Self.iterations)
        #expect(Set(list).count == 8 * Self.iterations)
    }

    @Test("@AppState var n; n += 1 from 8 tasks loses no increment")
    func appStateWrapperIncrement() async {
        await concurrently(iterations: Self.iterations) { _, _ in
            Wrappers().count += 1
        }
        #expect(Application.state(\.inPlaceWrapped).value == 8 * Self.iterations)
    }

    @Test("slice.value += 1 from 8 tasks loses no increment, and the rest of the value is kept")
    func sliceIncrement() async {
        Application.update(\.inPlaceTally) { $0.note = "kept" }
        await concurrently(iterations: Self.iterations) { _, _ in
            var count = Application.slice(\.inPlaceTally, \.count)
            count.value += 1
        }
        #expect(Application.state(\.inPlaceTally).value == Tally(count: 8 * Self.iterations, note: "kept"))
    }

    @Test("@Slice var n; n += 1 from 8 tasks loses no increment")
    func sliceWrapperIncrement() async {
        await concurrently(iterations: Self.iterations) { _, _ in
            Wrappers().sliceCount += 1
        }
        #expect(Application.state(\.inPlaceTally).value.count == 8 * Self.iterations)
    }

    @Test("optional slices: value? += 1 and value?.append through both kinds lose nothing")
    func optionalSliceIncrement() async {
        await concurrently(iterations: Self.iterations) { _, iteration in
            var count = Application.slice(\.inPlaceOptionalTally, \.count)
            count.value? += 1
            var note = Application.slice(\.inPlaceOptionalTally, \.note)
            if iteration == 0 { note.value = "" }
            note.value?.append("x")
        }
        let tally = Application.state(\.inPlaceOptionalTally).value
        #expect(tally?.count == 8 * Self.iterations)
        // Each task's first iteration may reset the note, so count what the last reset left.
        #expect((tally?.note?.count ?? 0) >= Self.iterations - 1)
    }

    @Test("optional slice appends from 8 tasks lose nothing once the member exists")
    func optionalSliceOptionalValueAppend() async {
        var note = Application.slice(\.inPlaceOptionalTally, \.note)
        note.value = ""
        await concurrently(iterations: Self.iterations) { _, _ in
            var note = Application.slice(\.inPlaceOptionalTally, \.note)
            note.value?.append("x")
        }
        #expect(Application.state(\.inPlaceOptionalTally).value?.note?.count == 8 * Self.iterations)
    }

    @Test("@OptionalSlice var n; n? += 1 from 8 tasks loses no increment")
    func optionalSliceWrapperIncrement() async {
        await concurrently(iterations: Self.iterations) { _, _ in
            Wrappers().optionalCount? += 1
        }
        #expect(Application.state(\.inPlaceOptionalTally).value?.count == 8 * Self.iterations)
    }

    @Test("optional slices leave a nil state nil")
    func optionalSliceOnNil() {
        var tally = Application.state(\.inPlaceOptionalTally)
        tally.value = nil
        var count = Application.slice(\.inPlaceOptionalTally, \.count)
        count.value? += 1
        Wrappers().optionalCount? += 1
        var note = Application.slice(\.inPlaceOptionalTally, \.note)
        note.value?.append("x")
        #expect(Application.state(\.inPlaceOptionalTally).value == nil)
    }

    @Test("storedState.value += 1 from 8 tasks loses no increment")
    func storedStateIncrement() async throws {
        await concurrently(iterations: Self.storedIterations) { _, _ in
            var stored = Application.storedState(\.inPlaceStored)
            stored.value += 1
        }
        #expect(Application.storedState(\.inPlaceStored).value == 8 * Self.storedIterations)
        #expect(try Application.storedState(\.inPlaceStored).read() == 8 * Self.storedIterations)
    }

    @Test("@StoredState var n; n += 1 and a slice of a stored state lose no increment")
    func storedStateWrapperAndSliceIncrement() async {
        await concurrently(iterations: Self.storedIterations) { _, _ in
            Wrappers().stored += 1
            var count = Application.slice(\.inPlaceStoredTally, \.count)
            count.value += 1
        }
        #expect(Application.storedState(\.inPlaceStoredWrapped).value == 8 * Self.storedIterations)
        #expect(Application.storedState(\.inPlaceStoredTally).value.count == 8 * Self.storedIterations)
    }

    @Test("fileState.value.append(x) from 8 tasks loses no element")
    func fileStateAppend() async throws {
        await concurrently(iterations: Self.persistedIterations) { task, iteration in
            var file = Application.fileState(\.inPlaceFile)
            file.value.append(task * Self.persistedIterations + iteration)
        }
        let list = try Application.fileState(\.inPlaceFile).read()
        #expect(list.count == 8 * Self.persistedIterations)
        #expect(Set(list).count == 8 * Self.persistedIterations)
    }

    @Test("@FileState var n; n += 1 from 8 tasks loses no increment")
    func fileStateWrapperIncrement() async throws {
        await concurrently(iterations: Self.persistedIterations) { _, _ in
            Wrappers().file += 1
        }
        #expect(try Application.fileState(\.inPlaceFileWrapped).read() == 8 * Self.persistedIterations)
    }

    @Test("modify(_:) on persisted handles is atomic too")
    func persistedModify() async {
        await concurrently(iterations: Self.storedIterations) { _, _ in
            var stored = Application.storedState(\.inPlaceStored)
            stored.modify { $0 += 1 }
        }
        #expect(Application.storedState(\.inPlaceStored).value == 8 * Self.storedIterations)
    }

    @Test("a mutation that throws keeps what it changed, like any inout access, and unlocks")
    func throwingMutationKeepsItsChanges() {
        struct Refused: Error {}
        func refuse(_ value: inout Int) throws {
            value = 99
            throw Refused()
        }
        var state = Application.state(\.inPlaceState)
        var stored = Application.storedState(\.inPlaceStored)
        let wrappers = Wrappers()
        #expect(throws: Refused.self) { try refuse(&state.value) }
        #expect(throws: Refused.self) { try refuse(&stored.value) }
        #expect(throws: Refused.self) { try refuse(&wrappers.file) }
        #expect(Application.state(\.inPlaceState).value == 99)
        #expect(Application.storedState(\.inPlaceStored).value == 99)
        #expect(Application.fileState(\.inPlaceFileWrapped).value == 99)
        // The entries are unlocked again.
        state.value += 1
        stored.value += 1
        wrappers.file += 1
        #expect(Application.state(\.inPlaceState).value == 100)
        #expect(Application.storedState(\.inPlaceStored).value == 100)
        #expect(Application.fileState(\.inPlaceFileWrapped).value == 100)
    }

    @Test("reading the entry on the right-hand side is not re-entry")
    func rightHandSideRead() {
        var state = Application.state(\.inPlaceState)
        state.value = 3
        state.value += Application.state(\.inPlaceState).value
        var stored = Application.storedState(\.inPlaceStored)
        stored.value = 3
        stored.value += Application.storedState(\.inPlaceStored).value
        #expect(Application.state(\.inPlaceState).value == 6)
        #expect(Application.storedState(\.inPlaceStored).value == 6)
    }
}
