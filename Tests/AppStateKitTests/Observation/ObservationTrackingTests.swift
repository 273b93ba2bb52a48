import Foundation
import Observation
import Synchronization
import Testing
@testable import AppStateKit

private struct Settings: Sendable, Equatable { var theme = "light"; var size = 1 }
private final class Service: @unchecked Sendable {
    // Safe for this test: written and read by one test.
    var name = "live"
}

private let observedStore = InMemoryDefaults()

private extension Application {
    var observedA: State<Int> { state(initial: 0) }
    var observedB: State<Int> { state(initial: 0) }
    var observedSettings: State<Settings> { state(initial: Settings()) }
    var observedService: Dependency<Service> { dependency(Service()) }
    var observedStored: StoredState<Int> { storedState(initial: 0, feature: "Observed", id: "stored", store: observedStore) }
    var observedFile: FileState<Int> { fileState(initial: 0, path: ObservationTrackingTests.directory, filename: "observed.json") }
    var observedReentrant: State<Int> { state(initial: 0) }
}

private struct Screen {
    @AppState(\.observedA) var a
    @Slice(\.observedSettings, \.theme) var theme
}

/// Counts `onChange` calls of one `withObservationTracking` registration.
private final class Fired: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
    func fire() { count.add(1, ordering: .sequentiallyConsistent) }
}

private func track(_ read: () -> Void) -> Fired {
    let fired = Fired()
    withObservationTracking(read) { fired.fire() }
    return fired
}

@Suite("Observation tracking", .serialized)
struct ObservationTrackingTests {
    static let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKit-observation-\(UUID().uuidString)")

    @Test("a write to the entry read fires; a write to another entry or a read doesn't")
    func perEntry() {
        let fired = track { _ = Application.state(\.observedA).value }
        _ = Application.state(\.observedA).value
        var b = Application.state(\.observedB)
        b.value += 1
        #expect(fired.value == 0)
        var a = Application.state(\.observedA)
        a.value += 1
        #expect(fired.value == 1)
    }

    @Test("every mutation path fires: setter, wrapper, update, reset, slice")
    func mutationPaths() {
        let mutations: [() -> Void] = [
            { var a = Application.state(\.observedA); a.value = 5 },
            { Screen().a = 6 },
            { Application.update(\.observedA) { $0 += 1 } },
            { Application.reset(\.observedA) },
            { var theme = Application.slice(\.observedSettings, \.theme); theme.value = "dark" },
            { Screen().theme = "light" },
        ]
        for (index, mutate) in mutations.enumerated() {
            let fired = track {
                _ = Screen().a
                _ = Screen().theme
            }
            mutate()
            #expect(fired.value == 1, "mutation \(index) did not fire")
        }
    }

    @Test("dependency override, cancel and promote fire; reading a dependency slice registers")
    func dependencies() {
        var fired = track { _ = Application.dependencySlice(\.observedService, \.name).value }
        let override = Application.override(\.observedService, with: Service())
        #expect(fired.value == 1)
        fired = track { _ = Application.dependency(\.observedService) }
        override.cancel()
        #expect(fired.value == 1)
        fired = track { _ = Application.dependency(\.observedService) }
        Application.promote(\.observedService, with: Service())
        #expect(fired.value == 1)
    }

    @Test("stored and file state writes fire")
    func persisted() {
        var fired = track { _ = Application.storedState(\.observedStored).value }
        var stored = Application.storedState(\.observedStored)
        stored.value = 3
        #expect(fired.value == 1)
        fired = track { _ = Application.fileState(\.observedFile).value }
        var file = Application.fileState(\.observedFile)
        file.value = 4
        #expect(fired.value == 1)
        try? FileManager.default.removeItem(atPath: Self.directory)
    }

    @Test("onChange may read and write the registry without deadlocking")
    func reentrantObserver() {
        let seen = Locked<[Int]>([])
        withObservationTracking {
            _ = Application.state(\.observedReentrant).value
        } onChange: {
            seen.withLock { $0.append(Application.state(\.observedB).value) }
            Application.update(\.observedB) { $0 += 1 }
        }
        Application.update(\.observedReentrant) { $0 += 1 }
        #expect(seen.withLock { $0.count } == 1)
    }

    @Test("notifyChange fires every observer, from any thread")
    func notifyChange() async {
        let fired = track { _ = Application.state(\.observedB).value }
        await Task.detached { Application.shared.notifyChange() }.value
        #expect(fired.value == 1)
    }
}
