import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// Issue 13, item 1: a read skips the `stat` while the file's generation counter stands still,
/// and still sees every write another process acknowledged.
@Suite("Freshness through the generation counter", .isolatedApplication)
struct FreshnessTests {
    static let path = "/config/app/defaults.json"

    @Test("in memory: a warm read takes no stat; a write by another instance makes the next read check and reload")
    func readsSkipTheStatUntilTheCounterMoves() throws {
        let files = InMemoryFileSystem()
        let reader = FileKeyValueStore(path: Self.path, fileSystem: files)
        let writer = FileKeyValueStore(path: Self.path, fileSystem: files)  // another process
        try writer.writeObject(1, forKey: "k")
        #expect(try reader.readObject(forKey: "k") as? Int == 1)  // loads, maps the counter
        #expect(try reader.readObject(forKey: "k") as? Int == 1)  // checks once with the counter
        files.fail(.stat, at: Self.path, with: EIO)
        // Any stat would now throw: these reads are served by the counter alone.
        for _ in 0..<100 { #expect(try reader.readObject(forKey: "k") as? Int == 1) }
        #expect(try reader.keys == ["k"])

        files.removeFailures()
        try writer.writeObject(2, forKey: "k")
        files.fail(.stat, at: Self.path, with: EIO)
        // The counter moved: the next read checks the file (and so meets the injected failure).
        #expect(throws: PersistenceError.system(EIO, subject: Self.path, operation: "stat")) {
            try reader.readObject(forKey: "k")
        }
        files.removeFailures()
        #expect(try reader.readObject(forKey: "k") as? Int == 2)
    }

    @Test("in memory: a file replaced by hand (createFile) is seen by the next read")
    func handEditsInMemory() throws {
        let files = InMemoryFileSystem()
        let store = FileKeyValueStore(path: Self.path, fileSystem: files)
        try store.writeObject(1, forKey: "k")
        #expect(store.object(forKey: "k") as? Int == 1)
        #expect(store.object(forKey: "k") as? Int == 1)
        files.createFile(atPath: Self.path, text: #"{"k": {"int": 5}}"#)
        #expect(store.object(forKey: "k") as? Int == 5)
    }

    @Test("on disk: the counter lives in the lock file, shared by every mapping of it", .realFileSystem)
    func countersAreShared() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let lock = directory.file("x.json.lock")
        guard case let .shared(first) = POSIXFileSystem().sharedGeneration(forLockFile: lock, create: true),
              case let .shared(second) = POSIXFileSystem().sharedGeneration(forLockFile: lock, create: false) else {
            Issue.record("the temporary directory's file system shares no counter")
            return
        }
        #expect(first.load() == 0)
        #expect(first.increment() == 0)
        #expect(second.load() == 1)
        AtomicFileWriter.announceChange(of: directory.file("x.json"))
        #expect(first.load() == 2)
        #expect(try TemporaryDirectory.permissions(of: lock) == 0o600)
        if case .absent = POSIXFileSystem().sharedGeneration(forLockFile: directory.file("none.lock"), create: false) {} else {
            Issue.record("a missing lock file must be absent without create")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("none.lock")))
    }

    @Test("on disk: a replacement not made through AppStateKit is trusted away until the revalidation interval passed on the freshness clock, then seen", .realFileSystem)
    func foreignWritesAreSeenAfterTheInterval() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let clock = TestClock()
        let store = FreshnessClock.$current.withValue(.on(clock)) {
            FileKeyValueStore(path: path, durability: .processCrashSafe)
        }
        try store.writeObject(1, forKey: "k")
        #expect(store.object(forKey: "k") as? Int == 1)
        // An editor's save: a new file renamed into place, without touching the counter.
        try Data(#"{"k": {"int": 7}}"#.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        #expect(store.object(forKey: "k") as? Int == 1, "the last check is trusted within the interval")
        await clock.advance(by: .nanoseconds(Int64(FileFreshness.revalidationInterval) - 1))
        #expect(store.object(forKey: "k") as? Int == 1)
        await clock.advance(by: .nanoseconds(1))
        #expect(store.object(forKey: "k") as? Int == 7)
    }

    @Test("a FileState takes the freshness clock bound when it is created, like a store")
    func fileStateFollowsTheFreshnessClock() async throws {
        let clock = TestClock()
        var file = FreshnessClock.$current.withValue(.on(clock)) { Application.fileState(\.clockedFile) }
        file.value = 1
        #expect(file.value == 1)
        let path = Application.dependency(\.fileManager).atomicFiles.mapped(file.path)
        try Data("7".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)  // not counted
        #expect(file.value == 1, "the last check is trusted within the interval")
        await clock.advance(by: .seconds(1))
        #expect(file.value == 7)
    }
}

extension Application {
    fileprivate var clockedFile: FileState<Int> {
        fileState(initial: 0, path: "/var/lib/freshness-clock", filename: "count.json", isBase64Encoded: false)
    }
}

/// Issue 13, item 1: the promise across processes, many rounds: once a child acknowledged a
/// write, this process's very next read returns it.
@Suite("Freshness across processes", .isolatedApplication, .realFileSystem, .serialized)
struct FreshnessProcessTests {
    static let rounds = 200

    /// Reads the child's output until it acknowledged `round`.
    private func waitForAcknowledgement(of round: Int, from child: PersistenceChild.Running, buffer: inout Data) -> Bool {
        let line = Data("\(round)\n".utf8)
        buffer.append(child.read(timeout: hangLimit) { [buffer] received in (buffer + received).range(of: line) != nil })
        guard let range = buffer.range(of: line) else { return false }
        buffer.removeSubrange(buffer.startIndex..<range.upperBound)
        return true
    }

    @Test("StoredState: each value the child acknowledged is what this process's next read returns")
    func store() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let store = FileKeyValueStore(path: path)
        try store.writeObject(-1, forKey: "Child/sequence")
        let child = try PersistenceChild.start(["store-pingpong", path, "\(Self.rounds)"])
        var buffer = Data()
        var stale: [Int] = []
        for round in 0..<Self.rounds {
            guard waitForAcknowledgement(of: round, from: child, buffer: &buffer) else {
                Issue.record("the child did not acknowledge round \(round)")
                break
            }
            let read = try store.readObject(forKey: "Child/sequence") as? Int
            if read != round { stale.append(round) }
            try store.writeObject(round, forKey: "Child/seen")
        }
        #expect(child.waitForExit())
        #expect(stale.isEmpty, "rounds whose acknowledged value the next read missed: \(stale)")
    }

    @Test("StoredState handle: each value the child acknowledged is what this process's next read returns, though reads reuse decoded values")
    func storedStateHandle() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let store = FileKeyValueStore(path: path)
        try store.writeObject(-1, forKey: "Child/sequence")
        let application = Application()
        let sequence = application.storedState(initial: -2, feature: "Child", id: "sequence", store: store)
        let child = try PersistenceChild.start(["store-pingpong", path, "\(Self.rounds)"])
        var buffer = Data()
        var stale: [Int] = []
        for round in 0..<Self.rounds {
            guard waitForAcknowledgement(of: round, from: child, buffer: &buffer) else {
                Issue.record("the child did not acknowledge round \(round)")
                break
            }
            // Twice: the second read is the one that reuses the value the first decoded.
            if sequence.value != round || sequence.value != round { stale.append(round) }
            try store.writeObject(round, forKey: "Child/seen")
        }
        #expect(child.waitForExit())
        #expect(stale.isEmpty, "rounds whose acknowledged value the next read missed: \(stale)")
    }

    @Test("FileState: each value the child acknowledged is what this process's next read returns")
    func fileState() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let application = Application()
        let payload = application.fileState(initial: FreshnessPayload(sequence: -1), path: directory.path, filename: "payload.json", isBase64Encoded: false)
        let seen = application.fileState(initial: FreshnessPayload(sequence: -1), path: directory.path, filename: "seen.json", isBase64Encoded: false)
        try payload.write(FreshnessPayload(sequence: -1))
        let child = try PersistenceChild.start(["file-pingpong", directory.path, "\(Self.rounds)"])
        var buffer = Data()
        var stale: [Int] = []
        for round in 0..<Self.rounds {
            guard waitForAcknowledgement(of: round, from: child, buffer: &buffer) else {
                Issue.record("the child did not acknowledge round \(round)")
                break
            }
            if try payload.read().sequence != round { stale.append(round) }
            try seen.write(FreshnessPayload(sequence: round))
        }
        #expect(child.waitForExit())
        #expect(stale.isEmpty, "rounds whose acknowledged value the next read missed: \(stale)")
    }
}

/// The child's FileState payload.
private struct FreshnessPayload: Codable, Sendable, Equatable {
    var sequence: Int
    var padding: [String] = []
}
