import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private final class ViewedService: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private extension Application {
    var viewedCounter: State<Int> { state(initial: 0) }
    var viewedSettings: Dependency<Int> { dependency(7) }
    var viewedService: Dependency<ViewedService> { dependency(ViewedService(id: 1)) }
    subscript(viewedRequest id: String) -> State<Int> { state(initial: 0, feature: "Viewed", id: id) }
}

/// Runs `body` on a new thread, in the calling task's context (its isolated application), and
/// waits for it.
private func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let context = Application.currentContext
    let thread = Thread {
        context.run(body)
        done.signal()
    }
    thread.start()
    done.wait()
}

/// A repeated read goes through the calling thread's view (`ThreadViews`): it takes no lock and
/// writes nothing another thread reads, and still sees every write, removal and override. The
/// shared application's registry reads this way; each test has its isolated one do so too.
@Suite("Reads through the thread's views", .isolatedApplication)
struct ThreadViewTests {
    init() {
        Application.current.registry.readThroughViews()
    }

    @Test("a repeated State read takes neither the registry's lock nor the entry's")
    func stateReadTakesNoLock() {
        var counter = Application.state(\.viewedCounter)
        counter.value = 3
        #expect(Application.state(\.viewedCounter).value == 3)
        let registry = Application.current.registry
        let entry = counter.entry
        // Both locks are error-checking in debug builds: taking either again on this thread stops.
        // Taken in the lock order (an entry's value lock before the registry's; see LockOrder).
        entry.lock.lock()
        registry.table.lock.lock()
        let read = Application.state(\.viewedCounter).value
        registry.table.lock.unlock()
        entry.lock.unlock()
        #expect(read == 3)
    }

    @Test("a repeated dependency read takes neither the registry's lock nor the entry's")
    func dependencyReadTakesNoLock() {
        #expect(Application.dependency(\.viewedSettings) == 7)
        let registry = Application.current.registry
        registry.table.lock.lock()
        let read = Application.dependency(\.viewedSettings)
        registry.table.lock.unlock()
        #expect(read == 7)
    }

    @Test("a write on another thread is seen by this thread's next read")
    func writeElsewhereIsSeen() {
        #expect(Application.state(\.viewedCounter).value == 0)
        onAnotherThread {
            var counter = Application.state(\.viewedCounter)
            counter.value = 5
            Application.update(\.viewedCounter) { $0 += 1 }
        }
        #expect(Application.state(\.viewedCounter).value == 6)
        Application.update(\.viewedCounter) { $0 += 1 }
        #expect(Application.state(\.viewedCounter).value == 7)
    }

    @Test("an override and a promotion made on another thread are seen by this thread's next read")
    func dependencyChangeElsewhereIsSeen() {
        #expect(Application.dependency(\.viewedService).id == 1)
        let override = OverrideBox()
        onAnotherThread {
            override.value = Application.override(\.viewedService, with: ViewedService(id: 2))
        }
        #expect(Application.dependency(\.viewedService).id == 2)
        override.value?.cancel()
        #expect(Application.dependency(\.viewedService).id == 1)
        onAnotherThread {
            Application.promote(\.viewedService, with: ViewedService(id: 3))
        }
        #expect(Application.dependency(\.viewedService).id == 3)
    }

    @Test("an entry removed on another thread is found fresh by this thread's next read")
    func removalElsewhereIsSeen() {
        var request = Application.state(\.[viewedRequest: "a"])
        request.value = 9
        #expect(Application.state(\.[viewedRequest: "a"]).value == 9)
        onAnotherThread {
            Application.remove(state: Application.state(\.[viewedRequest: "a"]))
        }
        #expect(Application.state(\.[viewedRequest: "a"]).value == 0)
        #expect(request.value == 9, "the old handle keeps its detached entry")
    }

    @Test("a handle read and written on another thread than the one that made it")
    func handleCrossesThreads() {
        let handle = Application.state(\.viewedCounter)
        #expect(handle.value == 0)
        onAnotherThread {
            var copy = handle
            #expect(copy.value == 0)
            copy.value = 4
            #expect(copy.value == 4)
        }
        #expect(handle.value == 4)
        #expect(Application.state(\.viewedCounter).value == 4)
    }
}

/// Carries an override token back from another thread.
private final class OverrideBox: @unchecked Sendable {
    // Safe: written on the other thread before its semaphore is signalled, read after the wait.
    var value: Application.DependencyOverride?
}
