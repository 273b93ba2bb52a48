import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

// The debug-build checks of the registry's invariants (Documentation/Internals.md, "Invariants
// and the check that enforces each"): each broken invariant stops the process with its message.
#if DEBUG
@Suite("Invariant checks (debug builds)", .isolatedApplication)
struct InvariantCheckTests {
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

    @Test("asking the registry for an entry as the wrong subclass stops")
    func wrongEntryTypeStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let key = EntryKey(kind: .state, valueType: Int.self, name: EntryName(feature: "Invariant", id: "type"))
            _ = Application.shared.registry.entry(for: key) { StateEntry(key: key, initial: 1) }
            _ = Application.shared.registry.entry(for: key, as: DependencyEntry<Int>.self) { DependencyEntry(key: $0, value: 1) }
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: internal error: the registry holds a StateEntry<Int> for Invariant.type, not a DependencyEntry<Int>"))
    }
}
#endif
