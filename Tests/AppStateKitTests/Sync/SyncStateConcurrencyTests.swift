import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

fileprivate struct Tally: Codable, Sendable {
    var count = 0
}

fileprivate extension Application {
    var fleetCounter: SyncState<Int> { syncState(initial: 0, feature: "Fleet", id: "counter") }
    var fleetTally: SyncState<Tally> { syncState(initial: Tally(), feature: "Fleet", id: "tally") }
}

fileprivate struct TallyView {
    @SyncState(\.fleetCounter) var counter
}

@Suite("SyncState concurrency", .isolatedApplication)
struct SyncStateConcurrencyTests {
    static let tasks = 8
    static let perTask = 40

    @Test("update is atomic: 8 tasks × N increments on one store end at exactly 8N")
    func concurrentUpdates() async throws {
        let store = installStore()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.tasks {
                group.addTask {
                    for _ in 0..<Self.perTask {
                        try await Application.syncState(\.fleetCounter).update { $0 += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = Self.tasks * Self.perTask
        #expect(try store.cachedRecord(forKey: "Fleet/counter")?.value == Data("\(total)".utf8))
        #expect(try await Application.syncState(\.fleetCounter).read() == total)
        #expect(Application.syncState(\.fleetCounter).value == total)
    }

    @Test("update is atomic across two applications sharing one store (two processes), and each sees the other's writes")
    func twoApplications() async throws {
        let shared = InMemorySyncStore()
        let results = try await withThrowingTaskGroup(of: Int.self, returning: [Int].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await Application.withIsolatedApplication {
                        Application.promote(\.syncStore, with: shared)
                        try await withThrowingTaskGroup(of: Void.self) { inner in
                            for _ in 0..<(Self.tasks / 2) {
                                inner.addTask {
                                    for _ in 0..<Self.perTask {
                                        try await Application.syncState(\.fleetCounter).update { $0 += 1 }
                                    }
                                }
                            }
                            try await inner.waitForAll()
                        }
                        // The other application's last increments arrive through the feed.
                        let total = Self.tasks * Self.perTask
                        _ = await eventually { Application.syncState(\.fleetCounter).value == total }
                        return Application.syncState(\.fleetCounter).value
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let total = Self.tasks * Self.perTask
        #expect(results == [total, total])
        #expect(try shared.cachedRecord(forKey: "Fleet/counter")?.value == Data("\(total)".utf8))
        #expect(try shared.cachedRecord(forKey: "Fleet/counter")?.version == Int64(total))
    }

    @Test("in-place mutations (value +=, the wrapper, modify, a slice) from many tasks lose nothing in this process, and the store ends on the total")
    func inPlaceMutations() async throws {
        let store = installStore()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    for _ in 0..<Self.perTask {
                        switch task % 4 {
                        case 0:
                            var counter = Application.syncState(\.fleetCounter)
                            counter.value += 1
                        case 1:
                            TallyView().counter += 1
                        case 2:
                            Application.syncState(\.fleetCounter).modify { $0 += 1 }
                        default:
                            var counter = Application.slice(\.fleetTally, \.count)
                            counter.value += 1
                        }
                    }
                }
            }
        }
        let onCounter = Self.tasks * Self.perTask * 3 / 4
        #expect(Application.syncState(\.fleetCounter).value == onCounter)
        #expect(Application.syncState(\.fleetTally).value.count == Self.tasks * Self.perTask / 4)
        #expect(try await Application.syncState(\.fleetCounter).read() == onCounter)
        #expect(try store.cachedRecord(forKey: "Fleet/counter")?.value == Data("\(onCounter)".utf8))
    }

    @Test("concurrent setters from many threads: every reader ends on the store's final value")
    func concurrentSetters() async throws {
        let store = installStore()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    for index in 0..<Self.perTask {
                        var counter = Application.syncState(\.fleetCounter)
                        counter.value = task * 1_000 + index
                        _ = counter.value
                    }
                }
            }
        }
        let final = try await Application.syncState(\.fleetCounter).read()
        #expect(try store.cachedRecord(forKey: "Fleet/counter")?.value == Data("\(final)".utf8))
        #expect(Application.syncState(\.fleetCounter).value == final)
        // Each assignment was committed or replaced, while queued, by a later one of the key
        // (see SyncWriteCoalescingTests): at most one commit per assignment.
        let version = try #require(try store.cachedRecord(forKey: "Fleet/counter")?.version)
        #expect((1...Int64(Self.tasks * Self.perTask)).contains(version))
    }
}
