import Foundation
import Testing
import AppStateKitTesting
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// A value whose release a test can observe.
private final class Tracked: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private final class TrackedFactoryCalls: Sendable {
    static let shared = CallCounter()
}

private extension Application {
    subscript(removalRequest id: String) -> State<Int> { state(initial: 0, feature: "Removal", id: id) }
    subscript(removalTracked id: String) -> State<Tracked?> { state(initial: nil, feature: "RemovalTracked", id: id) }
    var removalScratch: State<[String]> { state(initial: [], id: UUID().uuidString) }
    var removalClient: Dependency<Tracked> {
        dependency(Tracked(id: TrackedFactoryCalls.shared.increment()), feature: "Removal", id: "client")
    }
}

@Suite("Removing entries", .isolatedApplication)
struct RemovalTests {
    @Test("a removed state is freed and its next access starts from the initial value")
    func removedStateStartsAgain() {
        var handle = Application.state(\.[removalRequest: "a"])
        handle.value = 42
        let before = Application.current.registry.count
        #expect(Application.remove(state: Application.state(\.[removalRequest: "a"])))
        #expect(Application.current.registry.count == before - 1)
        #expect(!Application.description.contains("Removal.a"))
        #expect(Application.state(\.[removalRequest: "a"]).value == 0)
        #expect(!Application.remove(state: handle), "already removed")
    }

    @Test("a handle taken before the removal keeps working on its detached entry")
    func handleStaysDetached() {
        var handle = Application.state(\.[removalRequest: "b"])
        handle.value = 1
        Application.remove(state: Application.state(\.[removalRequest: "b"]))
        handle.value += 10
        #expect(handle.value == 11)
        #expect(Application.state(\.[removalRequest: "b"]).value == 0, "the fresh entry doesn't see the detached one")
        Application.update(\.[removalRequest: "b"]) { $0 = 5 }
        #expect(handle.value == 11)
    }

    @Test("an entry nothing refers to any more is released by its removal")
    func removalReleasesTheValue() {
        weak var released: Tracked?
        do {
            let tracked = Tracked(id: 1)
            released = tracked
            var handle = Application.state(\.[removalTracked: "x"])
            handle.value = tracked
        }
        #expect(released != nil, "the registry keeps the entry")
        Application.remove(state: Application.state(\.[removalTracked: "x"]))
        #expect(released == nil)
    }

    @Test("an id made on every evaluation is removed through its handle")
    func removeThroughHandle() {
        var scratch = Application.state(\.removalScratch)
        scratch.value.append("draft")
        let before = Application.current.registry.count
        #expect(Application.remove(state: scratch))
        #expect(Application.current.registry.count == before - 1)
        #expect(scratch.value == ["draft"])
    }

    @Test("a removed dependency's factory runs again on the next access")
    func removedDependencyIsCreatedAgain() {
        let first = Application.dependency(\.removalClient)
        #expect(Application.dependency(\.removalClient) === first)
        #expect(Application.remove(dependency: \.removalClient))
        let second = Application.dependency(\.removalClient)
        #expect(second !== first)
        #expect(second.id > first.id)
    }

    @Test("another thread that remembered the entry sees the fresh one after the removal")
    func otherThreadForgetsRemovedEntry() {
        let scope = Application.currentContext
        let readerRemembered = DispatchSemaphore(value: 0)
        let removed = DispatchSemaphore(value: 0)
        let results = Locked<[Int]>([])
        Application.update(\.[removalRequest: "c"]) { $0 = 7 }
        let reader = Thread {
            scope.run {
                var handle = Application.state(\.[removalRequest: "c"])
                results.withLock { $0.append(handle.value) }
                readerRemembered.signal()
                removed.wait()
                results.withLock { $0.append(Application.state(\.[removalRequest: "c"]).value) }
                handle.value += 1   // the detached entry, still valid
                results.withLock { $0.append(handle.value) }
            }
            readerRemembered.signal()
        }
        reader.start()
        readerRemembered.wait()
        Application.remove(state: Application.state(\.[removalRequest: "c"]))
        removed.signal()
        readerRemembered.wait()
        #expect(results.withLock { $0 } == [7, 0, 8])
    }

    @Test("creating and removing per-request entries keeps the registry flat")
    func perRequestEntriesStayFlat() {
        let registry = Application.current.registry
        _ = Application.state(\.[removalRequest: "warm-up"]).value
        let entries = registry.count
        for index in 0..<5_000 {
            var request = Application.state(\.[removalRequest: "request-\(index)"])
            request.value = index
            Application.remove(state: request)
        }
        #expect(registry.count == entries)
    }

    @Test("threads reading, writing and removing the same keys stay memory-safe (run under ASan too)")
    func concurrentRemovalIsSafe() async {
        let keys = (0..<8).map { "shared-\($0)" }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<2_000 {
                        let id = keys[(round + worker) % keys.count]
                        var handle = Application.state(\.[removalRequest: id])
                        handle.value += 1
                        if round % 3 == worker % 3 { Application.remove(state: handle) }
                        handle.value += 1   // possibly detached: still valid
                        _ = Application.state(\.[removalRequest: id]).value
                    }
                }
            }
        }
        for id in keys { Application.remove(state: Application.state(\.[removalRequest: id])) }
        #expect(keys.allSatisfy { Application.state(\.[removalRequest: $0]).value == 0 })
    }
}
