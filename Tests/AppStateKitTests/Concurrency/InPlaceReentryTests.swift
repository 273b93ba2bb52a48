import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

// Touching an entry from inside its own in-place mutation would deadlock on the entry's lock:
// it stops the process with a message naming the entry instead.

private extension Application {
    var reentryState: State<Int> { state(initial: 0, feature: "Reentry", id: "state") }
    var reentryStored: StoredState<Int> { storedState(initial: 0, feature: "Reentry", id: "stored") }
}

extension Int {
    /// Runs `body` while `self` is being mutated in place.
    fileprivate mutating func mutate(during body: () -> Void) {
        body()
        self += 1
    }
}

@Suite("In-place mutation re-entry", .isolatedApplication)
struct InPlaceReentryTests {
    @Test("reading a state from inside its own `value` mutation stops with its key")
    func stateReentryStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Application.withIsolatedApplication {
                var state = Application.state(\.reentryState)
                state.value.mutate { _ = Application.state(\.reentryState).value }
            }
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: State Reentry.state was accessed from inside its own update."))
    }

    @Test("writing a stored state from inside its own `value` mutation stops with its key")
    func storedStateReentryStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Application.withIsolatedApplication {
                var stored = Application.storedState(\.reentryStored)
                stored.value.mutate {
                    var again = Application.storedState(\.reentryStored)
                    again.value = 5
                }
            }
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: StoredState Reentry.stored was accessed from inside its own update."))
    }

    @Test("reading a stored state from inside its own `value` mutation stops with its key")
    func storedStateReadReentryStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Application.withIsolatedApplication {
                var stored = Application.storedState(\.reentryStored)
                stored.value.mutate { _ = Application.storedState(\.reentryStored).value }
            }
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("AppStateKit: StoredState Reentry.stored was accessed from inside its own update."))
    }
}
