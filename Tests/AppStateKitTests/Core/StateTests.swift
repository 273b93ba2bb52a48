import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private struct Point: Equatable, Sendable {
    var x: Int
    var y: Int
}

private enum Shape: Equatable, Sendable {
    case circle(radius: Double)
    case square
}


nonisolated(unsafe) private var initialEvaluations = 0

private extension Application {
    var stateCounter: State<Int> { state(initial: 0) }
    var stateName: State<String> { state(initial: "initial") }
    var stateLazy: State<Int> {
        state(initial: { initialEvaluations += 1; return 7 }())
    }
    var stateArray: State<[Point]> { state(initial: [Point(x: 1, y: 2)]) }
    var stateDictionary: State<[String: [Int]]> { state(initial: ["a": [1]]) }
    var stateOptionalArray: State<[String]?> { state(initial: nil) }
    var stateNested: State<[String: [Shape?]]> { state(initial: [:]) }
    var stateSet: State<Set<Int>> { state(initial: []) }
    var stateIncrements: State<Int> { state(initial: 0) }
}

@Suite("State", .isolatedApplication)
struct StateTests {
    @Test("a handle's writes reach the shared entry")
    func handleWritesPersist() {
        var handle = Application.state(\.stateName)
        #expect(handle.value == "initial")
        handle.value = "changed"
        #expect(Application.state(\.stateName).value == "changed")
        Application.reset(\.stateName)
        #expect(Application.state(\.stateName).value == "initial")
    }

    @Test("reset() on a handle restores the initial value")
    func handleReset() {
        var handle = Application.state(\.stateCounter)
        handle.value = 41
        handle.reset()
        #expect(Application.state(\.stateCounter).value == 0)
    }

    @Test("the initial value is evaluated once, on first access only")
    func initialIsLazyAndOnce() {
        #expect(initialEvaluations == 0)
        _ = Application.state(\.stateLazy).value
        _ = Application.state(\.stateLazy).value
        Application.update(\.stateLazy) { $0 += 1 }
        #expect(initialEvaluations == 1)
        #expect(Application.state(\.stateLazy).value == 8)
    }

    @Test("collections, optionals of collections and nested generics work on Linux")
    func collectionValues() {
        Application.update(\.stateArray) { $0.append(Point(x: 3, y: 4)) }
        #expect(Application.state(\.stateArray).value == [Point(x: 1, y: 2), Point(x: 3, y: 4)])

        var dictionary = Application.state(\.stateDictionary)
        dictionary.value["b", default: []].append(2)
        #expect(Application.state(\.stateDictionary).value == ["a": [1], "b": [2]])

        #expect(Application.state(\.stateOptionalArray).value == nil)
        var optionalArray = Application.state(\.stateOptionalArray)
        optionalArray.value = ["x"]
        #expect(Application.state(\.stateOptionalArray).value == ["x"])

        var nested = Application.state(\.stateNested)
        nested.value = ["shapes": [.circle(radius: 1), nil, .square]]
        #expect(Application.state(\.stateNested).value["shapes"]?[0] == .circle(radius: 1))
        #expect(Application.state(\.stateNested).value["shapes"]?[1] == .some(nil))

        Application.update(\.stateSet) { $0.formUnion([3, 1, 2]) }
        #expect(Application.state(\.stateSet).value == [1, 2, 3])
    }

    @Test("update is atomic: 8 detached tasks × 10,000 increments end at 80,000")
    func updateIsAtomic() async {
        // Detached tasks don't inherit task-locals: carry this test's isolated application.
        let scope = Application.currentContext
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await Task.detached {
                        scope.run {
                            for _ in 0..<10_000 {
                                Application.update(\.stateIncrements) { $0 += 1 }
                            }
                        }
                    }.value
                }
            }
        }
        #expect(Application.state(\.stateIncrements).value == 80_000)
    }

    @Test("update returns the closure's result")
    func updateReturnsResult() {
        let doubled = Application.update(\.stateCounter) { value -> Int in
            value = 21
            return value * 2
        }
        #expect(doubled == 42)
        #expect(Application.state(\.stateCounter).value == 21)
        Application.reset(\.stateCounter)
    }
}
