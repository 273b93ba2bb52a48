import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit

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
