import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// The debug-build check of AppStateKit's lock order (`LockOrder`): an entry's value lock, then
/// the registry's lock, then its table's; a thread taking a lower-ranked lock while holding a
/// higher-ranked one stops, naming both, before the interleaving that would deadlock happens.
@Suite("Lock order is checked in debug builds", .isolatedApplication)
struct LockOrderTests {
    #if DEBUG
    @Test("taking an entry's value lock while holding the registry's table lock stops, naming both")
    func entryUnderTableStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let table = LockedBox(0, order: .registryTable)
            let entry = LockedCell(0)
            table.withLock { _ in entry.lock.withLock {} }
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("lock order violated: taking an entry's value lock while holding the registry's table lock"))
    }

    @Test("taking the registry's lock while holding its table lock stops")
    func registryUnderTableStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let table = Lock(order: .registryTable)
            let registry = Lock(order: .registry)
            table.withLock { registry.withLock {} }
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("lock order violated: taking the registry's lock while holding the registry's table lock"))
    }

    @Test("the order itself passes: entry values (one inside another), then the registry, then its table; unordered locks anywhere")
    func orderPasses() async {
        await #expect(processExitsWith: .success) {
            let first = LockedCell(0)
            let second = LockedCell(0)
            let registry = Lock(order: .registry)
            let table = Lock(order: .registryTable)
            let other = Lock()
            table.withLock { other.withLock {} }
            first.lock.withLock {
                second.lock.withLock {
                    registry.withLock { table.withLock {} }
                }
            }
            // Released in any order, a lock of each rank can be taken again afterwards.
            table.withLock {}
            first.lock.withLock {}
        }
    }

    @Test("a State mutation whose code creates and reads other entries follows the order")
    func mutationCreatingEntriesPasses() {
        var outer = Application.state(\.lockOrderOuter)
        // The comparator runs inside the in-place mutation, with the entry's value lock held,
        // and creates another entry (the registry's locks) on its first call.
        outer.value.sort { first, second in
            Application.state(\.lockOrderLate).value > 0 && first < second
        }
        #expect(Application.state(\.lockOrderOuter).value == [1, 2, 3])
    }
    #endif
}

private extension Application {
    var lockOrderOuter: State<[Int]> { state(initial: [3, 1, 2]) }
    var lockOrderLate: State<Int> { state(initial: 2) }
}
