import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// The embedded store's ``SyncStore`` contract, in one process. Two instances on one path stand
/// for two processes: each has its own cache and learns of the other's writes only through the
/// file. (`LocalSyncStoreProcessTests` does the same with real processes.)
@Suite("LocalSyncStore", .isolatedApplication, .reportsAsDiagnostics)
final class LocalSyncStoreTests: Sendable {
    /// Each test's own directory (every test runs on a fresh instance), removed with it.
    let directory = TemporaryDirectory()
    deinit { directory.remove() }
    var path: String { directory.file("sync.json") }

    private func json(_ text: String) -> Data { Data(text.utf8) }

    @Test("versions start above 0 and grow with every write; another instance reads the newest")
    func versions() async throws {
        let store = LocalSyncStore(path: path)
        #expect(try store.cachedRecord(forKey: "App/a") == nil)
        #expect(try await store.fetchRecord(forKey: "App/a") == nil)

        let first = try await store.write(json("1"), forKey: "App/a")
        #expect(first.key == "App/a" && first.value == json("1") && first.version > 0)
        let second = try await store.write(json("2"), forKey: "App/a")
        #expect(second.version > first.version)
        let other = try await store.write(json("\"x\""), forKey: "App/b")
        #expect(other.version > 0)

        #expect(try store.cachedRecord(forKey: "App/a") == second)
        let reader = LocalSyncStore(path: path)
        #expect(try reader.cachedRecord(forKey: "App/a") == second)
        #expect(try await reader.fetchRecord(forKey: "App/b") == other)

        // A write through the other instance is seen by this one's next read.
        let third = try await reader.write(json("3"), forKey: "App/a")
        #expect(third.version > second.version)
        #expect(try store.cachedRecord(forKey: "App/a") == third)
    }

    @Test("compare-and-set commits on the current version and reports the current record on a conflict")
    func compareAndSet() async throws {
        let store = LocalSyncStore(path: path)
        let other = LocalSyncStore(path: path)

        #expect(try await store.compareAndSet(json("1"), forKey: "k", expectedVersion: 5) == .conflict(current: nil))
        guard case let .committed(first) = try await store.compareAndSet(json("1"), forKey: "k", expectedVersion: 0) else {
            Issue.record("expected a commit on version 0 of a new key")
            return
        }
        #expect(try await other.compareAndSet(json("9"), forKey: "k", expectedVersion: 0) == .conflict(current: first))

        guard case let .committed(second) = try await other.compareAndSet(json("2"), forKey: "k", expectedVersion: first.version) else {
            Issue.record("expected a commit on the current version")
            return
        }
        #expect(second.version > first.version && second.value == json("2"))
        // `store` still holds `first` in its cache: the check is made against the file.
        #expect(try await store.compareAndSet(json("3"), forKey: "k", expectedVersion: first.version) == .conflict(current: second))
        #expect(try store.cachedRecord(forKey: "k") == second)
    }

    @Test("a removal is a tombstone with a new version that compare-and-set and the snapshot see")
    func tombstones() async throws {
        let store = LocalSyncStore(path: path)
        let written = try await store.write(json("true"), forKey: "flag")
        let removed = try await store.write(nil, forKey: "flag")
        #expect(removed.value == nil && removed.version > written.version)
        #expect(try LocalSyncStore(path: path).cachedRecord(forKey: "flag") == removed)

        // "Removed after I read it" is a conflict, not "never written".
        #expect(try await store.compareAndSet(json("false"), forKey: "flag", expectedVersion: 0) == .conflict(current: removed))
        #expect(try await store.compareAndSet(json("false"), forKey: "flag", expectedVersion: written.version) == .conflict(current: removed))
        guard case let .committed(back) = try await store.compareAndSet(json("false"), forKey: "flag", expectedVersion: removed.version) else {
            Issue.record("expected a commit on the tombstone's version")
            return
        }
        #expect(back.version > removed.version)

        let gone = try await store.compareAndSet(nil, forKey: "other", expectedVersion: 0)
        guard case let .committed(tombstone) = gone else {
            Issue.record("expected a commit")
            return
        }
        #expect(try await LocalSyncStore(path: path).snapshot() == [back, tombstone])
    }

    @Test("the snapshot holds every record, sorted by key; a missing file is an empty store")
    func snapshot() async throws {
        let store = LocalSyncStore(path: path)
        #expect(try await store.snapshot() == [])
        let b = try await store.write(json("2"), forKey: "b")
        let a = try await store.write(json("1"), forKey: "a")
        let c = try await store.write(nil, forKey: "c")
        #expect(try await LocalSyncStore(path: path).snapshot() == [a, b, c])
    }

    @Test("values keep their exact bytes: escapes, Unicode, and bytes that are not UTF-8")
    func exactBytes() async throws {
        let store = LocalSyncStore(path: path)
        let values: [String: Data] = [
            "quotes": json(#"{"a":"b\"c\\d","e":"\n\t"}"#),
            "unicode": json(#"["é","日本","🙂"]"#),
            "control": Data([0x22, 0x01, 0x1F, 0x7F, 0x22]),
            "binary": Data([0xFF, 0x00, 0xC3, 0x28]),
            "empty": Data(),
            "slash/key \"quoted\"": json("null"),
        ]
        for (key, value) in values {
            _ = try await store.write(value, forKey: key)
        }
        let reader = LocalSyncStore(path: path)
        for (key, value) in values {
            #expect(try reader.cachedRecord(forKey: key)?.value == value, "\(key)")
        }
        // The file stays JSON a person can read.
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        #expect(file?["format"] as? Int == 1)
        #expect((file?["records"] as? [String: Any])?.count == values.count)
    }

    @Test("keys and values beyond SyncLimits are refused with errors naming the key, and nothing is written")
    func limits() async throws {
        let store = LocalSyncStore(path: path)
        let longKey = String(repeating: "k", count: SyncLimits.maxKeyBytes + 1)
        for key in ["", longKey] {
            await #expect(throws: SyncStoreError.self) { _ = try await store.write(json("1"), forKey: key) }
            #expect(throws: SyncStoreError.self) { _ = try store.cachedRecord(forKey: key) }
        }
        do {
            _ = try await store.write(json("1"), forKey: longKey)
            Issue.record("expected an error")
        } catch let error as SyncStoreError {
            #expect(error.kind == .invalidKey)
        }
        let big = Data(repeating: UInt8(ascii: "1"), count: SyncLimits.maxValueBytes + 1)
        do {
            _ = try await store.compareAndSet(big, forKey: "big", expectedVersion: 0)
            Issue.record("expected an error")
        } catch let error as SyncStoreError {
            #expect(error.kind == .valueTooLarge)
            #expect(error.description.contains("\"big\""))
        }
        #expect(!FileManager.default.fileExists(atPath: path))

        // Exactly at the limits is fine.
        let edgeKey = String(repeating: "é", count: SyncLimits.maxKeyBytes / 2)
        let edge = try await store.write(Data(repeating: UInt8(ascii: "1"), count: SyncLimits.maxValueBytes), forKey: edgeKey)
        #expect(try LocalSyncStore(path: path).cachedRecord(forKey: edgeKey) == edge)
    }

    @Test("a feed delivers this instance's commits and another instance's, in commit order", arguments: [
        LocalSyncStore.ChangeDetection.automatic, .polling(every: .milliseconds(5)),
    ])
    func feed(changeDetection: LocalSyncStore.ChangeDetection) async throws {
        let store = LocalSyncStore(path: path, changeDetection: changeDetection)
        let other = LocalSyncStore(path: path)
        let before = try await other.write(json("0"), forKey: "before")
        let recorder = FeedRecorder(SyncChange.records(of: store.changeFeed()))

        let own = try await store.write(json("1"), forKey: "own")
        await recorder.wait { $0.contains(own) }

        let external = try await other.write(json("2"), forKey: "external")
        let removed = try await other.write(nil, forKey: "own")
        let seen = await recorder.wait { $0.contains(removed) }
        #expect(seen == [own, external, removed], "\(seen)")
        #expect(!seen.contains(before), "records from before the feed opened are not changes")
        await recorder.cancel()
    }

    @Test("a feed opened before the store's directory exists sees the first write of another instance")
    func feedBeforeDirectory() async throws {
        let nested = directory.file("not/yet/sync.json")
        let store = LocalSyncStore(path: nested)
        let recorder = FeedRecorder(SyncChange.records(of: store.changeFeed()))
        #expect(!FileManager.default.fileExists(atPath: directory.file("not")), "opening a feed creates nothing")
        let written = try await LocalSyncStore(path: nested).write(json("1"), forKey: "k")
        #expect(await recorder.wait { $0.contains(written) } == [written])
        await recorder.cancel()
    }

    @Test("a store whose path is a symbolic link watches the directory of the file the link points to")
    func symbolicLink() async throws {
        let target = directory.file("real/sync.json")
        let link = directory.file("links/sync.json")
        try FileManager.default.createDirectory(atPath: directory.file("links"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let store = LocalSyncStore(path: link)
        let recorder = FeedRecorder(SyncChange.records(of: store.changeFeed()))
        #expect(store.watcher?.directory == directory.file("real"))
        let written = try await LocalSyncStore(path: target).write(json("1"), forKey: "k")
        #expect(await recorder.wait { $0.contains(written) } == [written])
        #expect(try store.cachedRecord(forKey: "k") == written)
        await recorder.cancel()
    }

    @Test("two feeds of one store share one watcher, which stops when the last feed ends and when the store goes away")
    func watcherLifetime() async throws {
        let store = LocalSyncStore(path: path)
        #expect(store.watcher == nil)
        let first = FeedRecorder(SyncChange.records(of: store.changeFeed()))
        let watcher = try #require(store.watcher)
        let second = FeedRecorder(SyncChange.records(of: store.changeFeed()))
        #expect(store.watcher === watcher)

        await first.cancel()
        #expect(store.watcher === watcher)
        await second.cancel()
        // A feed's end is handled on another thread (see `SyncFeed.onTermination`).
        #expect(await eventually { store.watcher == nil })
        #expect(watcher.waitUntilFinished(timeout: hangLimit))

        // A store released with an open feed ends the feed and its watcher.
        var released: LocalSyncStore? = LocalSyncStore(path: path)
        let feed = released!.changeFeed()
        let orphan = try #require(released!.watcher)
        released = nil
        var iterator = feed.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(orphan.waitUntilFinished(timeout: hangLimit))
    }

    /// A consumer's cancellation ends its feed while the runtime holds the consumer task's lock;
    /// a delivery holds the store's lock while it takes that task's lock to resume it. The feed's
    /// end once took the store's lock right there, and the two threads waited for each other
    /// forever (seen at the end of a test run). Stopped after `hangLimit` with a failure if they
    /// still do.
    @Test("feeds cancelled while the store delivers to them: neither waits for the other")
    func cancelWhileDelivering() async throws {
        let store = LocalSyncStore(path: path, fileSystem: InMemoryFileSystem())
        let writer = Task.detached {
            var count = 0
            while !Task.isCancelled {
                count += 1
                _ = try? await store.write(Data("\(count)".utf8), forKey: "App/k")
            }
        }
        defer { writer.cancel() }
        let finished: Void? = await withDeadline {
            for _ in 0..<2_000 {
                let feed = SyncChange.records(of: store.changeFeed())
                let consumer = Task.detached { for await _ in feed {} }
                await Task.yield()
                consumer.cancel()
                await consumer.value
            }
        }
        #expect(finished != nil, "cancelling a feed's consumer while the store delivers to it deadlocked")
    }

    @Test("a corrupt file is reported once, read as an error, left untouched by reads, and moved aside by the next write")
    func corruptFile() async throws {
        let messages = MessageCollector()
        let logger = Application.override(\.logger, with: ApplicationLogger(debug: { _ in }, error: { messages.append($0) }))
        defer { logger.cancel() }
        let garbage = json("{ not json")
        try garbage.write(to: URL(fileURLWithPath: path))
        let store = LocalSyncStore(path: path)

        for _ in 0..<2 {
            do {
                _ = try store.cachedRecord(forKey: "k")
                Issue.record("expected an error")
            } catch let error as SyncStoreError {
                #expect(error.kind == .corruptRecord)
                #expect(error.description.contains(path) && error.description.contains("\"k\""))
            }
        }
        await #expect(throws: SyncStoreError.self) { _ = try await store.snapshot() }
        #expect(messages.messages.count == 1, "reported once, not on every read: \(messages.messages)")
        // The parser's sentence, not Foundation's `Error Domain=NSCocoaErrorDomain … UserInfo=…` dump.
        #expect(messages.messages.first?.contains("not JSON (10 bytes): ") == true)
        #expect(messages.messages.allSatisfy { !$0.contains("NSCocoaErrorDomain") && !$0.contains("UserInfo") }, "\(messages.messages)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)

        let written = try await store.write(json("1"), forKey: "k")
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("sync.json.corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file(aside.first ?? ""))) == garbage)
        #expect(messages.messages.contains { $0.contains(aside.first ?? "?") })
        #expect(try LocalSyncStore(path: path).cachedRecord(forKey: "k") == written)
    }

    @Test("a new file after a corrupt one continues above the versions this process saw")
    func versionsSurviveMovingAside() async throws {
        let store = LocalSyncStore(path: path)
        var last = try await store.write(json("0"), forKey: "k")
        for value in 1...3 { last = try await store.write(json("\(value)"), forKey: "k") }
        try json("garbage").write(to: URL(fileURLWithPath: path))
        #expect(throws: SyncStoreError.self) { _ = try store.cachedRecord(forKey: "k") }
        let after = try await store.write(json("4"), forKey: "k")
        #expect(after.version > last.version)
    }

    @Test("a commit takes the file's next sequence number, so versions also order commits of different keys")
    func sequence() async throws {
        try json(#"{"format": 1, "sequence": 100, "records": {"a": {"version": 3, "value": "1"}}}"#).write(to: URL(fileURLWithPath: path))
        let store = LocalSyncStore(path: path)
        let b = try await store.write(json("2"), forKey: "b")
        let a = try await LocalSyncStore(path: path).write(json("3"), forKey: "a")
        #expect(b.version == 101)
        #expect(a.version == 102)
    }

    @Test("a damaged record only affects its key: others read and write, the bytes are kept, and replacing it saves them aside")
    func damagedRecord() async throws {
        let messages = MessageCollector()
        let logger = Application.override(\.logger, with: ApplicationLogger(debug: { _ in }, error: { messages.append($0) }))
        defer { logger.cancel() }
        let file = """
            {"format": 1, "sequence": 7, "records": {
              "good": {"version": 3, "value": "42"},
              "bad": {"version": 7, "value": 42},
              "worse": "not a record"
            }}
            """
        try json(file).write(to: URL(fileURLWithPath: path))
        let store = LocalSyncStore(path: path)

        #expect(try store.cachedRecord(forKey: "good") == SyncRecord(key: "good", value: json("42"), version: 3))
        for key in ["bad", "worse"] {
            do {
                _ = try store.cachedRecord(forKey: key)
                Issue.record("expected an error for \(key)")
            } catch let error as SyncStoreError {
                #expect(error.kind == .corruptRecord)
                #expect(error.description.contains("\"\(key)\"") && error.description.contains(path))
            }
        }
        #expect(try await store.snapshot() == [SyncRecord(key: "good", value: json("42"), version: 3)])
        #expect(messages.messages.filter { $0.contains("damaged") && $0.contains("\"bad\"") }.count >= 1)
        await #expect(throws: SyncStoreError.self) { _ = try await store.compareAndSet(json("1"), forKey: "bad", expectedVersion: 7) }

        // Writing another key writes the damaged records back unchanged.
        let other = try await store.write(json("1"), forKey: "other")
        #expect(other.version > 7)
        let reread = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let records = reread?["records"] as? [String: Any]
        #expect((records?["bad"] as? [String: Any])?["value"] as? Int == 42)
        #expect(records?["worse"] as? String == "not a record")

        // Replacing the damaged record keeps its bytes in a sibling file first.
        let replaced = try await store.write(json("2"), forKey: "bad")
        #expect(replaced.version > other.version)
        #expect(try LocalSyncStore(path: path).cachedRecord(forKey: "bad") == replaced)
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("sync.json.corrupt-record-") }
        #expect(aside.count == 1)
        let kept = try String(contentsOfFile: directory.file(aside.first ?? ""), encoding: .utf8)
        #expect(kept.contains("\"bad\"") && kept.contains("42"))
        #expect(messages.messages.contains { $0.contains(aside.first ?? "?") })
    }

    @Test("a file written by a newer AppStateKit is neither read nor replaced")
    func newerFormat() async throws {
        let newer = json(#"{"format": 2, "records": {}}"#)
        try newer.write(to: URL(fileURLWithPath: path))
        let store = LocalSyncStore(path: path)
        #expect(throws: SyncStoreError.self) { _ = try store.cachedRecord(forKey: "k") }
        await #expect(throws: SyncStoreError.self) { _ = try await store.write(json("1"), forKey: "k") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == newer)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".corrupt-") })
    }

    @Test("an unwritable location fails the write with an I/O error naming the key and the path")
    func ioFailure() async throws {
        // A directory that is a regular file: fails for every user, root included.
        let blocker = directory.file("blocker")
        try json("x").write(to: URL(fileURLWithPath: blocker))
        let store = LocalSyncStore(path: (blocker as NSString).appendingPathComponent("sync.json"))
        do {
            _ = try await store.write(json("1"), forKey: "App/k")
            Issue.record("expected an error")
        } catch let error as SyncStoreError {
            #expect(error.kind == .ioFailure)
            #expect(error.description.contains("\"App/k\"") && error.description.contains(blocker))
        }
    }

    @Test("the default path is sync.json next to the key-value store's default file")
    func defaultPath() {
        let storeDirectory = (FileKeyValueStore.defaultPath as NSString).deletingLastPathComponent
        #expect(LocalSyncStore.defaultPath == (storeDirectory as NSString).appendingPathComponent("sync.json"))
    }
}
