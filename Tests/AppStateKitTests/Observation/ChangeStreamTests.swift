import Foundation
import Testing
@testable import AppStateKit

private let streamStore = InMemoryDefaults()

private extension Application {
    var streamCounter: State<Int> { state(initial: 0) }
    var streamSettings: State<[String: Int]> { state(initial: [:]) }
    var streamStored: StoredState<String> { storedState(initial: "a", feature: "Stream", id: "stored", store: streamStore) }
    var streamFile: FileState<Int> { fileState(initial: 0, path: ChangeStreamTests.directory, filename: "stream.json") }
    var streamCancelled: State<Int> { state(initial: 0) }
}

/// Fails the test instead of hanging if `operation` takes longer than `seconds`.
private func withTimeout<T: Sendable>(_ seconds: Double, _ operation: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next()!
        group.cancelAll()
        return first
    }
}

@Suite("Change streams", .serialized)
struct ChangeStreamTests {
    static let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKit-streams-\(UUID().uuidString)")

    @Test("yields the current value first, then changes")
    func currentThenChanges() async {
        let values = await withTimeout(10) {
            var iterator = Application.values(of: \.streamSettings).makeAsyncIterator()
            var seen = [await iterator.next()!]
            var state = Application.state(\.streamSettings)
            state.value["a"] = 1
            seen.append(await iterator.next()!)
            return seen
        }
        #expect(values == [[:], ["a": 1]])
    }

    @Test("1,000 writes from 8 tasks while 4 subscribers consume: all end on the final value, none leak")
    func manyWritersManySubscribers() async {
        let before = Application.changeStreamCount
        let finals = await withTimeout(30) {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        for await value in Application.values(of: \.streamCounter) where value == 1_000 {
                            return value
                        }
                        return -1
                    }
                }
                // Let the subscribers register before writing.
                while Application.changeStreamCount < before + 4 { await Task.yield() }
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<125 { Application.update(\.streamCounter) { $0 += 1 } }
                        return 0
                    }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }.filter { $0 != 0 }
            }
        }
        #expect(finals == [1_000, 1_000, 1_000, 1_000])
        #expect(Application.changeStreamCount == before)
    }

    @Test("cancelling the consumer ends the stream and releases the subscription")
    func cancellation() async {
        let before = Application.changeStreamCount
        let consumer = Task {
            var count = 0
            for await _ in Application.values(of: \.streamCancelled) { count += 1 }
            return count
        }
        while Application.changeStreamCount == before { await Task.yield() }
        consumer.cancel()
        let count = await withTimeout(10) { await consumer.value }
        #expect(count != nil)
        #expect(Application.changeStreamCount == before)
    }

    @Test("stored states, file states and slices stream too")
    func persistedAndSlices() async {
        let stored = await withTimeout(10) {
            var iterator = Application.values(of: \.streamStored).makeAsyncIterator()
            _ = await iterator.next()
            var state = Application.storedState(\.streamStored)
            state.value = "b"
            return await iterator.next()
        }
        #expect(stored == "b")
        let file = await withTimeout(10) {
            var iterator = Application.values(of: \.streamFile).makeAsyncIterator()
            _ = await iterator.next()
            var state = Application.fileState(\.streamFile)
            state.value = 9
            return await iterator.next()
        }
        #expect(file == 9)
        let member = await withTimeout(10) {
            var iterator = Application.values(of: \.streamSettings, \.count).makeAsyncIterator()
            let first = await iterator.next()
            var state = Application.state(\.streamSettings)
            state.value = ["x": 1, "y": 2, "z": 3]
            return [first, await iterator.next()]
        }
        #expect(member?.last == 3)
        try? FileManager.default.removeItem(atPath: Self.directory)
    }
}
