import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit

// The debug-build checks of the registry's invariants (Documentation/Internals.md, "Invariants
// and the check that enforces each"): each broken invariant stops the process with its message.
#if DEBUG
@Suite("Invariant checks (debug builds)", .isolatedApplication)
struct InvariantCheckTests {
    @Test("adding a second object for one key to an ObjectTable stops")
    func objectTableDuplicateStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let key = EntryKey(kind: .state, valueType: Int.self, name: EntryName(feature: "Invariant", id: "twice"))
            var table = ObjectTable<RegistryEntry>()
            table.add(StateEntry(key: key, initial: 1), for: key)
            table.add(StateEntry(key: key, initial: 2), for: key)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: internal error: Invariant.twice was added to an ObjectTable twice"))
    }

    @Test("locking a Lock twice on one thread stops instead of deadlocking")
    func relockStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let lock = Lock()
            lock.lock()
            lock.lock()
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: pthread_mutex_lock failed with \(EDEADLK)"))
    }

    @Test("unlocking a Lock the thread doesn't hold stops")
    func foreignUnlockStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Lock().unlock()
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: pthread_mutex_unlock failed with \(EPERM)"))
    }

    @Test("touching another thread's memo slot stops, naming the entry")
    func foreignMemoStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let key = EntryKey(kind: .dependency, valueType: Int.self, name: EntryName(feature: "Invariant", id: "memo"))
            let slot = Application.shared.registry.withSlot(for: key, create: { DependencyEntry(key: $0, value: 1) }) { $0 }
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                _ = slot.memoizedSnapshot(at: 0, as: ValueBox<Int>.self)
                done.signal()
            }
            thread.start()
            done.wait()
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: internal error: a thread touched another thread's memo slot of Invariant.memo"))
    }

    @Test("asking a slot for its entry as the wrong subclass stops")
    func wrongEntryTypeStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let key = EntryKey(kind: .state, valueType: Int.self, name: EntryName(feature: "Invariant", id: "type"))
            let slot = Application.shared.registry.retainedSlot(for: key) { StateEntry(key: $0, initial: 1) }
            _ = slot.entry(as: DependencyEntry<Int>.self)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: internal error: the entry for Invariant.type is not a DependencyEntry<Int>"))
    }
}
#endif
