import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// Issue 13, item 2: concurrent writes to one store share commits and lose nothing.
@Suite("FileKeyValueStore group commit", .isolatedApplication)
struct GroupCommitTests {
    @Test("8 threads × 50 writes of different keys: every acknowledged write is in the file", .realFileSystem)
    func concurrentWriters() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let store = FileKeyValueStore(path: path)
        let failures = LockedCounter()
        onThreads(8) { thread in
            for index in 0..<50 {
                do { try store.writeObject(index, forKey: "t\(thread)-\(index)") } catch { failures.add() }
            }
        }
        #expect(failures.value == 0)
        let reopened = FileKeyValueStore(path: path)
        #expect(try reopened.keys.count == 400)
        for thread in 0..<8 {
            for index in 0..<50 {
                #expect(try reopened.readObject(forKey: "t\(thread)-\(index)") as? Int == index)
            }
        }
    }

    @Test("8 threads × 25 compare-and-set increments of one key count exactly 200")
    func concurrentUpdates() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: "/data/defaults.json", fileSystem: files)
        onThreads(8) { _ in
            var done = 0
            while done < 25 {
                let current = store.object(forKey: "count") as? Int
                if (try? store.replaceValue(forKey: "count", ifEqualTo: current, with: (current ?? 0) + 1)) == true { done += 1 }
            }
        }
        #expect(try FileKeyValueStore(path: "/data/defaults.json", fileSystem: files).readObject(forKey: "count") as? Int == 200)
    }

    @Test("a failing commit fails every write of its batch and changes nothing; the next commit works")
    func failedBatch() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: "/data/defaults.json", fileSystem: files)
        try store.writeObject(0, forKey: "before")
        let before = files.contents(atPath: "/data/defaults.json")
        files.fail(.write, at: "/data/defaults.json", with: ENOSPC)
        let failures = LockedCounter()
        onThreads(4) { thread in
            do { try store.writeObject(thread, forKey: "k\(thread)") } catch { failures.add() }
        }
        #expect(failures.value == 4)
        #expect(files.contents(atPath: "/data/defaults.json") == before)
        files.removeFailures()
        try store.writeObject(1, forKey: "after")
        #expect(try store.keys == ["after", "before"])
    }
}

/// The commit delay: a batch waits for the writers the one before it acknowledged.
@Suite("FileKeyValueStore commit delay", .isolatedApplication)
struct CommitDelayTests {
    /// A store with the log layout in memory, whose commits wait for returning writers however
    /// fast they are (up to a minute, which no run of these tests comes near).
    private static func store(in files: InMemoryFileSystem) -> FileKeyValueStore {
        let store = FileKeyValueStore(path: "/data/defaults.json", layout: .appendOnlyLog, fileSystem: files, compactionThreshold: 1 << 30)
        store.commits.delay = CommitQueue.Delay(maximum: .seconds(60), isBoundedByCommitTime: false)
        return store
    }

    /// The keys of each batch appended to the store's log, in order.
    private static func batches(of store: FileKeyValueStore, in files: InMemoryFileSystem) throws -> [Set<String>] {
        let log = try #require(files.contents(atPath: try store.logPath()))
        let scan = StoreLog.scan(log.dropFirst(StoreLog.headerLength), base: StoreLog.headerLength)
        #expect(scan.corruption == nil && !scan.hasTornTail)
        return scan.batches.map { Set($0.keys) }
    }

    @Test("4 writers land in one batch per round: a batch waits for the writers of the one before it; each returns after its batch is in the log")
    func gathersEveryWriter() throws {
        let files = InMemoryFileSystem()
        let store = Self.store(in: files)
        try store.writeObject(0, forKey: "setup")  // creates the file and an empty log
        let rounds = 20
        let unacknowledged = LockedCounter()
        let firstReturned = LockedCounter()
        // Writer 0 writes first and alone, and its batch is held (by holding the store's lock file)
        // until writers 1–3 queue behind it: they form the next batch, which must wait for writer 0's
        // next write. From then on every batch holds one write of each writer. Writer 0 writes one
        // more time than the others, so the last batch holds all four and nobody waits in vain.
        let writers = DispatchGroup()
        let write: @Sendable (Int) -> Void = { thread in
            for index in 0..<(thread == 0 ? rounds + 1 : rounds) {
                do {
                    try store.writeObject(index, forKey: "w\(thread)-\(index)")
                    if thread == 0, index == 0 { firstReturned.add() }
                    // Acknowledged: what the file system holds has it (a new store reads it).
                    let reader = FileKeyValueStore(path: "/data/defaults.json", layout: .appendOnlyLog, fileSystem: files)
                    if try reader.readObject(forKey: "w\(thread)-\(index)") as? Int != index { unacknowledged.add() }
                } catch {
                    unacknowledged.add()
                }
            }
        }
        try files.withExclusiveLock(store.lockPath) {
            start(writers) { write(0) }
            #expect(waitUntil { store.commits.status.queued == 0 && store.commits.status.isLeading })
            for thread in 1...3 { start(writers) { write(thread) } }
            #expect(waitUntil { store.commits.status.queued == 3 })
            // Writer 0's batch can't reach the log while its lock is held: it hasn't returned.
            #expect(firstReturned.value == 0)
        }
        writers.wait()
        #expect(unacknowledged.value == 0)
        let batches = try Self.batches(of: store, in: files)
        #expect(batches.count == rounds + 1)
        #expect(batches.first == ["w0-0"])
        for (round, keys) in batches.dropFirst().enumerated() {
            #expect(keys == ["w0-\(round + 1)", "w1-\(round)", "w2-\(round)", "w3-\(round)"])
        }
    }

    @Test("a lone writer never waits: 50 writes take one batch each, none delayed")
    func loneWriterDoesNotWait() throws {
        let files = InMemoryFileSystem()
        let store = Self.store(in: files)
        // (A writer that waited would wait 1 ms each time, and be counted.)
        store.commits.delay = CommitQueue.Delay(maximum: .milliseconds(1), isBoundedByCommitTime: false)
        for index in 0..<51 { try store.writeObject(index, forKey: "k\(index)") }
        #expect(store.commits.status.delayedBatches == 0)
        // The first write created the file and the log; the others appended one batch each.
        #expect(try Self.batches(of: store, in: files) == (1..<51).map { ["k\($0)"] })
    }

    @Test("a writer that stops writing is waited for at most the delay: the next batch then commits without it", .timeLimit(.minutes(3)))
    func stragglerIsNotAwaitedForever() throws {
        let files = InMemoryFileSystem()
        let store = Self.store(in: files)
        store.commits.delay = CommitQueue.Delay(maximum: .milliseconds(50), isBoundedByCommitTime: false)
        try store.writeObject(0, forKey: "setup")
        // Writer "a" writes once and stops; writer "b" queues while a's batch is held. b's batch
        // then waits for a's writer, which never comes back: it gives up and commits. The writes
        // after it are alone again: nothing waits for them.
        let writers = DispatchGroup()
        let failures = LockedCounter()
        try files.withExclusiveLock(store.lockPath) {
            start(writers) {
                do { try store.writeObject(1, forKey: "a") } catch { failures.add() }
            }
            #expect(waitUntil { store.commits.status.queued == 0 && store.commits.status.isLeading })
            start(writers) {
                do { try store.writeObject(1, forKey: "b") } catch { failures.add() }
            }
            #expect(waitUntil { store.commits.status.queued == 1 })
        }
        writers.wait()
        #expect(failures.value == 0)
        #expect(store.commits.status.delayedBatches == 1)
        try store.writeObject(2, forKey: "a")
        try store.writeObject(3, forKey: "a")
        #expect(store.commits.status.delayedBatches == 1)
        #expect(try Self.batches(of: store, in: files) == [["a"], ["b"], ["a"], ["a"]])
        #expect(try FileKeyValueStore(path: "/data/defaults.json", layout: .appendOnlyLog, fileSystem: files).readObject(forKey: "a") as? Int == 3)
    }
}

/// Runs `body` on a thread of its own, inside `group`.
private func start(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
    group.enter()
    Thread.detachNewThread {
        body()
        group.leave()
    }
}

/// Whether `condition` became true, checked every millisecond for at most 10 seconds.
private func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}

/// Runs `body(0..<count)` on `count` threads of its own at once (`concurrentPerform` would use
/// only as many threads as there are cores) and waits for all of them.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread.detachNewThread {
            body(index)
            group.leave()
        }
    }
    group.wait()
}

/// A counter threads can add to.
private final class LockedCounter: @unchecked Sendable {
    // Safe: `count` is only accessed while `lock` is held.
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
