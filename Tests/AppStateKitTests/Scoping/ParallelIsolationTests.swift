import Foundation
import Testing
import AppStateKit
import AppStateKitTesting

private struct Ledger: Codable, Equatable, Sendable { var owner: Int; var entries: [Int] }

/// The same keys for every test: only isolation keeps them apart.
private extension Application {
    var parallelCounter: State<Int> { state(initial: 0, feature: "Parallel", id: "counter") }
    var parallelStored: StoredState<Int> { storedState(initial: -1, feature: "Parallel", id: "stored") }
    var parallelFile: FileState<Ledger> {
        fileState(initial: Ledger(owner: -1, entries: []), path: "/var/lib/appstatekit-parallel", filename: "ledger.json")
    }
    var parallelOwner: Dependency<Int> { dependency(-1, feature: "Parallel", id: "owner") }
}

/// Run 20 times in a row by `.ci/steps/10-parallel-isolation.sh`.
@Suite("Parallel isolation", .isolatedApplication)
struct ParallelIsolationTests {
    @Test("60 tests in parallel mutate the same keys and see only their own values", arguments: 0..<60)
    func ownValuesOnly(test: Int) async throws {
        try await Application.withOverrides { $0.override(\.parallelOwner, with: test) } operation: {
            for round in 0..<5 {
                Application.update(\.parallelCounter) { $0 += test }
                var stored = Application.storedState(\.parallelStored)
                stored.value = test * 100 + round
                let file = Application.fileState(\.parallelFile)
                try file.write(Ledger(owner: test, entries: Array(0...round)))
                await Task.yield()
                #expect(Application.dependency(\.parallelOwner) == test)
                #expect(Application.state(\.parallelCounter).value == test * (round + 1))
                #expect(Application.storedState(\.parallelStored).value == test * 100 + round)
                #expect(try Application.fileState(\.parallelFile).read() == Ledger(owner: test, entries: Array(0...round)))
            }
        }
    }
}
