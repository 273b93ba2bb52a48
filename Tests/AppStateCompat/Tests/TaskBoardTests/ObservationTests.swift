// Swift Testing, main-actor tests: observation of state and dependencies, awaited cancels.
import AppStateKit
import Observation
import Synchronization
import Testing
@testable import TaskBoard

/// Counts `onChange` calls, which may arrive from any thread.
final class ChangeCount: Sendable {
    private let count = Atomic<Int>(0)
    func record() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

@MainActor
@Suite(.serialized)
struct ObservationTests {
    @Test func trackingAStateFiresOnItsChange() {
        let changes = ChangeCount()
        withObservationTracking {
            _ = Application.state(\.settings).value.theme
        } onChange: {
            changes.record()
        }
        #expect(changes.value == 0)
        var settings = Application.state(\.settings)
        settings.value.pageSize += 1
        #expect(changes.value == 1)
    }

    @Test func trackingAWrapperAndADependencySlice() {
        let view = BoardView()
        let changes = ChangeCount()
        withObservationTracking {
            _ = view.tasks
            _ = view.username
        } onChange: {
            changes.record()
        }
        view.add("observed")
        #expect(changes.value == 1)
    }

    @Test func trackingTheObservableViewModel() {
        let model = Application.dependency(\.boardViewModel)
        let changes = ChangeCount()
        withObservationTracking {
            _ = model.isLoading
        } onChange: {
            changes.record()
        }
        model.isLoading.toggle()
        model.isLoading.toggle()
        #expect(changes.value == 1)
    }

    @Test func overrideCancelledInADeferredTask() async {
        let override = Application.override(\.taskFetcher, with: FixedTaskFetcher(titles: ["deferred"]))
        defer { Task { await override.cancel() } }
        let titles = await Application.dependency(\.taskFetcher).fetchTitles()
        #expect(titles == ["deferred"])
    }

    @Test func viewModelLoadsUnderAnAwaitedOverride() async {
        let override = Application.override(\.taskFetcher, with: FixedTaskFetcher(titles: ["a", "b", "c"]))
        let view = BoardView()
        await view.viewModel.load()
        #expect(view.tasks.map(\.title) == ["a", "b", "c"])
        await override.cancel()
    }
}
