#if Configuration
import AppStateKit
import Configuration
import Foundation
import Synchronization

/// The values swift-configuration's `ProviderCompatTest` requires a provider to hold (its
/// documentation lists them; `magic` and `magic2` are the bytes of "magic" and "magic2").
enum CompatData {
    static let magic: [UInt8] = Array("magic".utf8)
    static let magic2: [UInt8] = Array("magic2".utf8)

    static let values: [String: ConfigContent] = [
        "string": .string("Hello"),
        "other.string": .string("Other Hello"),
        "int": .int(42),
        "other.int": .int(24),
        "double": .double(3.14),
        "other.double": .double(2.72),
        "bool": .bool(true),
        "other.bool": .bool(false),
        "bytes": .bytes(magic),
        "other.bytes": .bytes(magic2),
        "stringy.array": .stringArray(["Hello", "World"]),
        "other.stringy.array": .stringArray(["Hello", "Swift"]),
        "inty.array": .intArray([42, 24]),
        "other.inty.array": .intArray([16, 32]),
        "doubly.array": .doubleArray([3.14, 2.72]),
        "other.doubly.array": .doubleArray([0.9, 1.8]),
        "booly.array": .boolArray([true, false]),
        "other.booly.array": .boolArray([false, true, true]),
        "byteChunky.array": .byteChunkArray([magic, magic2]),
        "other.byteChunky.array": .byteChunkArray([magic, magic2, magic]),
    ]
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKitConfigurationTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A ``SyncStore`` over an ``InMemorySyncStore`` that can be made unreachable: every call that
/// would reach the backing store then throws `unavailable`, while the local copy keeps answering
/// (as `PostgresSyncStore` does while the database is down).
final class UnreachableSyncStore: SyncStore {
    let inner = InMemorySyncStore()
    private let down = Atomic<Bool>(false)
    private let restored = Mutex<[SyncRecord]?>(nil)

    /// Makes `snapshot()` answer `records` from now on, as a store restored from a backup (with
    /// lower versions than it handed out) would, without a change on the feed.
    func restore(_ records: [SyncRecord]) { restored.withLock { $0 = records } }

    func setReachable(_ reachable: Bool) { down.store(!reachable, ordering: .sequentiallyConsistent) }

    private func check(_ key: String) throws {
        if down.load(ordering: .sequentiallyConsistent) {
            throw SyncStoreError(.unavailable, key: key, detail: "the test made the store unreachable")
        }
    }

    func cachedRecord(forKey key: String) throws -> SyncRecord? { try inner.cachedRecord(forKey: key) }

    func fetchRecord(forKey key: String) async throws -> SyncRecord? {
        try check(key)
        return try await inner.fetchRecord(forKey: key)
    }

    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        try check(key)
        return try await inner.write(value, forKey: key)
    }

    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try check(key)
        return try await inner.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }

    func snapshot() async throws -> [SyncRecord] {
        try check("")
        if let records = restored.withLock({ $0 }) { return records }
        return try await inner.snapshot()
    }

    private let replacementFeeds = Mutex<[AsyncStream<SyncChange>.Continuation]>([])

    /// The inner store's changes, and the replacements `announceReplacement` makes.
    func changeFeed() -> AsyncStream<SyncChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncChange.self)
        replacementFeeds.withLock { $0.append(continuation) }
        let changes = inner.changeFeed()
        let forwarding = Task {
            for await change in changes { continuation.yield(change) }
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }

    /// Tells every feed that the store's data was replaced by `records`.
    func announceReplacement(_ records: [SyncRecord]) {
        for feed in replacementFeeds.withLock({ $0 }) { feed.yield(.replaced(records)) }
    }
}

/// Waits for the first update of `updates` that `matches` accepts, and returns it.
func firstMatching<Updates: AsyncSequence>(
    _ updates: Updates, _ matches: (Updates.Element) throws -> Bool
) async throws -> Updates.Element? {
    for try await update in updates where try matches(update) {
        return update
    }
    return nil
}
#endif

#if Configuration
import Testing

/// Makes the isolated application a test runs in report to nowhere (to standard error only with
/// `APPSTATEKIT_TEST_DIAGNOSTICS=1`), so the reports a test provokes on purpose — a value read
/// as the wrong type — stay out of a green run. List it after `.isolatedApplication`; a test
/// that overrides `\.logger` to check the reports replaces it.
struct ReportsQuietlyTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    static let logger = ApplicationLogger(
        debug: { ReportsQuietlyTrait.show($0) },
        error: { (line: String) in ReportsQuietlyTrait.show(line) }
    )

    private static func show(_ line: String) {
        guard ProcessInfo.processInfo.environment["APPSTATEKIT_TEST_DIAGNOSTICS"] == "1" else { return }
        FileHandle.standardError.write(Data(("diagnostic: " + line + "\n").utf8))
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        // Outside an isolated application the promotion would reach every other test.
        try #require(Application.currentContext.isIsolated, "list .reportsQuietly after .isolatedApplication")
        Application.promote(\.logger, with: Self.logger)
        try await function()
    }
}

extension Trait where Self == ReportsQuietlyTrait {
    /// The isolated application's reports go nowhere (see ``ReportsQuietlyTrait``).
    static var reportsQuietly: Self { ReportsQuietlyTrait() }
}
#endif
