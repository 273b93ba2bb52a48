import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

fileprivate struct StreamSettings: Sendable, Equatable {
    var theme = "light"
    var size = 1
}

/// A handle with no registry entry behind it.
fileprivate struct FixedHandle: MutableApplicationState, Sendable {
    var value: Int {
        get { 42 }
        set {}
    }

    mutating func reset() {}
}

fileprivate extension Application {
    var streamCounter: State<Int> { state(initial: 0) }
    var streamOther: State<Int> { state(initial: 0) }
    var streamSettings: State<StreamSettings> { state(initial: StreamSettings()) }
    var streamStored: StoredState<String> { storedState(initial: "a", feature: "ChangeStreams", id: "stored") }
    var streamFile: FileState<Int> { fileState(initial: 0, filename: "change-streams.json") }
    var streamFixed: FixedHandle { FixedHandle() }
}

/// The last value each subscriber has seen.
fileprivate final class Progress: Sendable {
    private let last: Locked<[Int]>

    init(subscribers: Int) {
        last = Locked(Array(repeating: -1, count: subscribers))
    }

    func record(_ value: Int, subscriber: Int) {
        last.withLock { $0[subscriber] = value }
    }

    func allReached(_ value: Int) -> Bool {
        last.withLock { $0.allSatisfy { $0 == value } }
    }
}

/// Each test runs in its own isolated application; subscriber counts are per entry, so they
/// can't be disturbed by other tests' streams.
@Suite("Change streams", .isolatedApplication)
struct ObservationChangeStreamTests {
    @Test("yields the current value first, then each change")
    func currentThenChanges() async {
        Application.update(\.streamCounter) { $0 = 5 }
        let values = await withDeadline {
            var iterator = Application.values(of: \.streamCounter).makeAsyncIterator()
            var values = [await iterator.next()]
            Application.update(\.streamCounter) { $0 += 1 }
            values.append(await iterator.next())
            var state = Application.state(\.streamCounter)
            state.value = 10
            values.append(await iterator.next())
            return values
        }
        #expect(values == [5, 6, 10])
    }

    @Test("a slow consumer gets the newest value, not a backlog")
    func slowConsumerSeesLatest() async {
        let values = await withDeadline {
            var iterator = Application.values(of: \.streamCounter).makeAsyncIterator()
            var values = [await iterator.next()]
            for _ in 0..<100 { Application.update(\.streamCounter) { $0 += 1 } }
            values.append(await iterator.next())  // all 100 writes happened: only the newest is there
            Application.update(\.streamCounter) { $0 += 1 }
            values.append(await iterator.next())  // nothing was queued behind it
            return values
        }
        #expect(values == [0, 100, 101])
    }

    @Test("a write to another entry wakes nothing; subscriptions are counted per entry")
    func otherEntryDoesNotWake() async {
        let values = await withDeadline {
            var iterator = Application.values(of: \.streamCounter).makeAsyncIterator()
            var values = [await iterator.next()]
            #expect(Application.changeStreamCount(of: \.streamCounter) == 1)
            #expect(Application.changeStreamCount(of: \.streamOther) == 0)
            // Writers signal streams synchronously, so whether a write woke the stream is known
            // as soon as it returns: no wait, and a check that fails if the wrong stream is woken.
            Application.update(\.streamOther) { $0 += 1 }
            #expect(Application.changeStreamsWithPendingChange(of: \.streamCounter) == 0)
            Application.update(\.streamCounter) { $0 = 7 }
            #expect(Application.changeStreamsWithPendingChange(of: \.streamCounter) == 1)
            values.append(await iterator.next())
            #expect(Application.changeStreamsWithPendingChange(of: \.streamCounter) == 0)
            return values
        }
        #expect(values == [0, 7])
    }

    @Test("1,000 writes from 8 tasks while 4 subscribers consume: each ends on the final value, none leak")
    func manyWritersManySubscribers() async {
        let subscribers = 4
        let progress = Progress(subscribers: subscribers)
        let seen = await withDeadline {
            await withTaskGroup(of: [Int].self) { group in
                for subscriber in 0..<subscribers {
                    group.addTask {
                        var seen: [Int] = []
                        for await value in Application.values(of: \.streamCounter) {
                            seen.append(value)
                            progress.record(value, subscriber: subscriber)
                        }
                        return seen
                    }
                }
                let subscribed = await eventually { Application.changeStreamCount(of: \.streamCounter) == subscribers }
                #expect(subscribed)
                await withTaskGroup(of: Void.self) { writers in
                    for _ in 0..<8 {
                        writers.addTask {
                            for _ in 0..<125 { Application.update(\.streamCounter) { $0 += 1 } }
                        }
                    }
                }
                let reached = await eventually { progress.allReached(1_000) }
                #expect(reached, "not every subscriber reached the final value")
                group.cancelAll()
                return await group.reduce(into: [[Int]]()) { $0.append($1) }
            }
        }
        #expect(seen?.count == subscribers)
        for values in seen ?? [] {
            #expect(values.last == 1_000)
            #expect(values == values.sorted(), "a subscriber saw the counter go backwards")
            #expect(values.count <= 1_001, "more elements than changes")
        }
        #expect(Application.changeStreamCount(of: \.streamCounter) == 0)
    }

    @Test("cancelling a waiting consumer ends the stream and releases the subscription")
    func cancellationWhileWaiting() async {
        let consumer = Task {
            var count = 0
            for await _ in Application.values(of: \.streamCounter) { count += 1 }
            return count
        }
        #expect(await eventually { Application.changeStreamCount(of: \.streamCounter) == 1 })
        consumer.cancel()
        let count = await withDeadline { await consumer.value }
        #expect(count == 1, "the stream yielded the current value, then ended on cancellation")
        #expect(Application.changeStreamCount(of: \.streamCounter) == 0)
    }

    @Test("cancelling a consumer ends the stream even while writes keep coming")
    func cancellationUnderWrites() async {
        let ended = await withDeadline {
            await withTaskGroup(of: Void.self) { group in
                let consumer = Task {
                    for await _ in Application.values(of: \.streamCounter) {}
                }
                group.addTask {
                    // Yields after each write so it never monopolises a thread of the pool.
                    for _ in 0..<1_000_000 where !Task.isCancelled {
                        Application.update(\.streamCounter) { $0 += 1 }
                        await Task.yield()
                    }
                }
                _ = await eventually { Application.changeStreamCount(of: \.streamCounter) == 1 }
                consumer.cancel()
                await consumer.value
                group.cancelAll()
                return true
            }
        }
        #expect(ended == true)
        #expect(Application.changeStreamCount(of: \.streamCounter) == 0)
    }

    @Test("leaving the loop early releases the subscription")
    func breakReleases() async {
        let first = await withDeadline { () -> Int? in
            for await value in Application.values(of: \.streamCounter) { return value }
            return nil
        }
        #expect(first == 0)
        #expect(Application.changeStreamCount(of: \.streamCounter) == 0)
    }

    @Test("one sequence iterated by two loops gives two independent subscriptions")
    func independentIterations() async {
        let values = Application.values(of: \.streamCounter)
        let firsts = await withDeadline {
            var one = values.makeAsyncIterator()
            var two = values.makeAsyncIterator()
            #expect(Application.changeStreamCount(of: \.streamCounter) == 2)
            let first = [await one.next(), await two.next()]
            Application.update(\.streamCounter) { $0 = 3 }
            return first + [await one.next(), await two.next()]
        }
        #expect(firsts == [0, 0, 3, 3])
        #expect(Application.changeStreamCount(of: \.streamCounter) == 0)
    }

    @Test("stored states, file states and state members stream too")
    func persistedAndMembers() async throws {
        let stored = await withDeadline {
            var iterator = Application.values(of: \.streamStored).makeAsyncIterator()
            var values = [await iterator.next()]
            var state = Application.storedState(\.streamStored)
            state.value = "b"
            values.append(await iterator.next())
            Application.reset(storedState: \.streamStored)
            values.append(await iterator.next())
            return values
        }
        #expect(stored == ["a", "b", "a"])

        let file = await withDeadline {
            var iterator = Application.values(of: \.streamFile).makeAsyncIterator()
            var values = [await iterator.next()]
            do {
                try Application.fileState(\.streamFile).write(9)
            } catch {
                Issue.record(error)
            }
            values.append(await iterator.next())
            Application.reset(fileState: \.streamFile)
            values.append(await iterator.next())
            return values
        }
        #expect(file == [0, 9, 0])

        let themes = await withDeadline {
            var iterator = Application.values(of: \.streamSettings).map(\.theme).makeAsyncIterator()
            var values = [await iterator.next()]
            var theme = Application.slice(\.streamSettings, \.theme)
            theme.value = "dark"
            values.append(await iterator.next())
            return values
        }
        #expect(themes == ["light", "dark"])
    }

    @Test("notifyChange wakes every stream, which reads its entry again")
    func notifyChangeWakesStreams() async {
        let values = await withDeadline {
            var counter = Application.values(of: \.streamCounter).makeAsyncIterator()
            var stored = Application.values(of: \.streamStored).makeAsyncIterator()
            let first = (await counter.next(), await stored.next())
            Application.notifyChange()
            let second = (await counter.next(), await stored.next())
            return [first.0, second.0].map { "\($0 ?? -1)" } + [first.1, second.1].map { $0 ?? "" }
        }
        #expect(values == ["0", "0", "a", "a"])
    }

    @Test("with polling off, notifyChange delivers a change made behind the entry's back")
    func notifyChangeDeliversExternalChange() async {
        let values = await withDeadline {
            var iterator = Application.values(of: \.streamFile, pollInterval: nil).makeAsyncIterator()
            var values = [await iterator.next()]
            do {
                // What another process would do: replace the file without telling this one.
                let path = Application.fileState(\.streamFile).path
                try Application.dependency(\.fileManager).atomicFiles.writeAtomically(Data("7".utf8), toFile: path)
            } catch {
                Issue.record(error)
            }
            Application.notifyChange()
            values.append(await iterator.next())
            return values
        }
        #expect(values == [0, 7])
    }

    @Test("polling runs on the poll clock: once per interval, delivering only a change made behind the entry's back")
    func pollingFollowsTheClock() async {
        let clock = TestClock()
        let path = Application.fileState(\.streamFile).path
        let fileManager = Application.dependency(\.fileManager).atomicFiles
        let stream = WaitClock.$current.withValue(WaitClock(clock)) {
            Task {
                var iterator = Application.values(of: \.streamFile, pollInterval: .seconds(2)).makeAsyncIterator()
                var values: [Int?] = []
                for _ in 0..<3 { values.append(await iterator.next()) }
                return values
            }
        }
        // What another process would do: replace the file without telling this one.
        func writeBehindTheEntrysBack(_ text: String) {
            do {
                try fileManager.writeAtomically(Data(text.utf8), toFile: path)
            } catch {
                Issue.record(error)
            }
        }
        #expect(await eventually { clock.sleeperCount == 1 })  // delivered 0, waiting for a poll
        await clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 1)  // half an interval: no poll
        await clock.advance(by: .seconds(1))  // a poll that finds nothing new delivers nothing
        #expect(await eventually { clock.sleeperCount == 1 })  // waiting for the next poll
        writeBehindTheEntrysBack("7")
        await clock.advance(by: .seconds(2))
        #expect(await eventually { clock.sleeperCount == 1 })  // delivered 7, waiting again
        writeBehindTheEntrysBack("42")
        await clock.advance(by: .seconds(2))
        let values = await withDeadline { await stream.value }
        #expect(values == [0, 7, 42])
        #expect(Application.changeStreamCount(of: \.streamFile) == 0)  // released with the iterator
    }

    @Test("a custom handle without an entry yields its value once")
    func customHandle() async {
        let values = await withDeadline {
            var values: [Int] = []
            for await value in Application.values(of: \.streamFixed) { values.append(value) }
            return values
        }
        #expect(values == [42])
    }
}

// MARK: - Another process's changes

fileprivate struct ChildPayload: Codable, Sendable {
    var sequence: Int
    var padding: [String]
}

fileprivate enum CrossProcess {
    static let directory = TemporaryDirectory.forProcess()
    static let store = FileKeyValueStore(path: directory.file("defaults.json"))
}

fileprivate extension Application {
    // The child process writes these through its own entries (see Tests/PersistenceChild).
    var crossProcessFile: FileState<ChildPayload> {
        fileState(initial: ChildPayload(sequence: -1, padding: []), path: CrossProcess.directory.path, filename: "payload.json", isBase64Encoded: false)
    }
    var crossProcessStored: StoredState<Int> {
        storedState(initial: -1, feature: "Child", id: "sequence", store: CrossProcess.store)
    }
}

/// Real files and a real second process, so these run on the shared application, with the other
/// tests of process globals, one at a time; each removes the files it made (the child re-creates
/// the directory). Using the real file manager outside an isolated application is what they mean
/// to do, so the notice that tells a test so is a diagnostic here.
extension ProcessGlobalTests {
    @Suite("Change streams across processes", .reportsAsDiagnosticsInEveryApplication)
    struct ObservationCrossProcessTests {
        @Test("a file state stream sees another process's writes by polling the file's stamp")
        func fileStateFromAnotherProcess() async throws {
            defer { CrossProcess.directory.remove() }
            let child = try PersistenceChild.start(["file-sequence", CrossProcess.directory.path, "payload.json", "20"])
            let sequences = await withDeadline {
                var sequences: [Int] = []
                for await payload in Application.values(of: \.crossProcessFile, pollInterval: .milliseconds(5)) {
                    sequences.append(payload.sequence)
                    if payload.sequence == 19 { break }
                }
                return sequences
            }
            #expect(child.waitForExit())
            #expect(sequences?.last == 19)
            #expect(sequences == sequences?.sorted())
            #expect(Application.changeStreamCount(of: \.crossProcessFile) == 0)
        }

        @Test("a stored state stream sees another process's writes by polling the store")
        func storedStateFromAnotherProcess() async throws {
            defer { CrossProcess.directory.remove() }
            let child = try PersistenceChild.start(["store-sequence", CrossProcess.store.path, "20"])
            let values = await withDeadline {
                var values: [Int] = []
                for await value in Application.values(of: \.crossProcessStored, pollInterval: .milliseconds(5)) {
                    values.append(value)
                    if value == 19 { break }
                }
                return values
            }
            #expect(child.waitForExit())
            #expect(values?.last == 19)
            #expect(values == values?.sorted())
        }
    }
}
