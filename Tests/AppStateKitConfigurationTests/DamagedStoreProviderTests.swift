#if Configuration
import AppStateKit
import AppStateKitConfiguration
import AppStateKitTesting
import Configuration
import Foundation
import Synchronization
import Testing

extension Application {
    /// A secret a SecureState declares in the providers' namespace: the provider redacts it unlisted.
    fileprivate var configuredDatabasePassword: SecureState { secureState(feature: "Configuration", id: "db.password") }
}

/// A ``SyncStore`` over an ``InMemorySyncStore`` that reports the record of `damagedKey` as
/// damaged, as a store does whose API reports a damaged record: its snapshot fails naming the
/// key, and so does every read of that key.
final class DamagedRecordSyncStore: SyncStore {
    let inner = InMemorySyncStore()
    let damagedKey: String
    static let file = "/var/lib/app/sync.json"

    init(damagedKey: String) {
        self.damagedKey = damagedKey
    }

    private var damage: SyncStoreError {
        SyncStoreError(.corruptRecord, key: damagedKey, detail: "the record in \(Self.file) is damaged (\"version\" is missing)")
    }

    func cachedRecord(forKey key: String) throws -> SyncRecord? {
        if key == damagedKey { throw damage }
        return try inner.cachedRecord(forKey: key)
    }

    func fetchRecord(forKey key: String) async throws -> SyncRecord? { try cachedRecord(forKey: key) }
    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord { try await inner.write(value, forKey: key) }

    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try await inner.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }

    func snapshot() async throws -> [SyncRecord] { throw damage }
    func keys() async throws -> [String] { try await inner.snapshot().map(\.key) + [damagedKey] }
    func changeFeed() -> AsyncStream<SyncChange> { inner.changeFeed() }
}

/// Collects the lines reported through `\.logger` while it is overridden.
final class ReportedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var logger: ApplicationLogger { ApplicationLogger(error: { line in self.lines.withLock { $0.append(line) } }) }
}

@Suite("Configuration providers over damaged stores start, serve the other keys and report the damage", .isolatedApplication, .timeLimit(.minutes(1)))
struct DamagedStoreProviderTests {
    @Test("a store that reports a damaged record: the sync provider starts, serves every other key, reports the key, the file and what to do")
    func syncProviderStartsOverDamagedRecord() async throws {
        let reported = ReportedLines()
        let override = Application.override(\.logger, with: reported.logger)
        defer { override.cancel() }
        let store = DamagedRecordSyncStore(damagedKey: "Configuration/http.mode")
        _ = try await store.inner.write(Data("200".utf8), forKey: "Configuration/http.rateLimit")
        _ = try await store.inner.write(Data(#""info""#.utf8), forKey: "Configuration/log.level")

        let provider = try await SyncStoreConfigProvider(store: store)
        #expect(try provider.value(forKey: ["http", "rateLimit"], type: .int).value?.content == .int(200))
        #expect(try provider.value(forKey: ["log", "level"], type: .string).value?.content == .string("info"))
        #expect(try provider.value(forKey: ["http", "mode"], type: .string).value == nil)
        let lines = reported.all
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.contains("SyncStoreConfigProvider[Configuration] started without the damaged record of \"Configuration/http.mode\""))
        #expect(line.contains(DamagedRecordSyncStore.file))
        #expect(line.contains("To repair it, write the key (setValue(_:forKey:)"))

        // reload() reads key by key again: the damage is not reported twice.
        try await provider.reload()
        #expect(try provider.value(forKey: ["http", "rateLimit"], type: .int).value?.content == .int(200))
        #expect(reported.all.count == 1)
    }

    @Test("an embedded store whose sync.json can't be decoded: the provider starts at top level and takes the values a write brings")
    func syncProviderStartsOverCorruptFile() async throws {
        let reported = ReportedLines()
        let override = Application.override(\.logger, with: reported.logger)
        defer { override.cancel() }
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        try Data(#"{"format": 1, "records": {"Configuration/a": {"version": 1, "value": "1"}, "Configuration/b": {"vers"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let provider = try await SyncStoreConfigProvider(store: LocalSyncStore(path: path))
        #expect(reported.all.contains { $0.contains(path) }, "nothing reported the damaged file: \(reported.all)")
        try await provider.setValue(.int(3), forKey: "c")
        #expect(try provider.value(forKey: ["c"], type: .int).value?.content == .int(3))
    }

    @Test("a key-value store with a damaged entry: the provider starts, serves every other key and reports the damaged one")
    func keyValueProviderStartsOverDamagedEntry() throws {
        let reported = ReportedLines()
        let override = Application.override(\.logger, with: reported.logger)
        defer { override.cancel() }
        let files = InMemoryFileSystem()
        let path = "/etc/app/config.json"
        files.createFile(atPath: path, text: #"{"Configuration/good": {"int": 7}, "Configuration/bad": {"int": 1.5}}"#)
        let store = FileKeyValueStore(path: path, fileSystem: files)

        let provider = try KeyValueStoreConfigProvider(store: store, pollInterval: .seconds(3600))
        #expect(try provider.value(forKey: ["good"], type: .int).value?.content == .int(7))
        #expect(try provider.value(forKey: ["bad"], type: .int).value == nil)
        let line = try #require(reported.all.first)
        #expect(reported.all.count == 1)
        #expect(line.contains("KeyValueStoreConfigProvider[Configuration] can't read \"Configuration/bad\""))
        #expect(line.contains(path))
        #expect(line.contains("To repair it, write the key (setValue(_:forKey:))"))

        try provider.refresh()
        #expect(reported.all.count == 1)
        try provider.setValue(.int(2), forKey: "bad")
        #expect(try provider.value(forKey: ["bad"], type: .int).value?.content == .int(2))
    }

    @Test("a stored value of the wrong type (\"fast\" read as an int) is reported once, not silently replaced by the default")
    func wrongTypeIsReported() async throws {
        let reported = ReportedLines()
        let override = Application.override(\.logger, with: reported.logger)
        defer { override.cancel() }
        let syncStore = InMemorySyncStore()
        _ = try await syncStore.write(Data(#""fast""#.utf8), forKey: "Configuration/http.speed")
        let sync = try await SyncStoreConfigProvider(store: syncStore)
        let keyValue = try KeyValueStoreConfigProvider(store: InMemoryDefaults(["Configuration/http.speed": "fast"]), pollInterval: .seconds(3600))
        for provider in [sync as any ConfigProvider, keyValue] {
            let reader = ConfigReader(providers: [provider])
            for _ in 0..<3 {
                #expect(reader.int(forKey: "http.speed", default: 5) == 5)
            }
        }
        let lines = reported.all
        #expect(lines.count == 2, "\(lines)")
        for (line, name) in zip(lines, ["SyncStoreConfigProvider", "KeyValueStoreConfigProvider"]) {
            #expect(line.hasPrefix(#"AppStateKitConfiguration: type mismatch for configuration key "Configuration/http.speed": the stored value is a string, which does not read as int"#))
            #expect(line.contains("\(name)[Configuration] answers with an error, so a reader with a default uses the default"))
            #expect(!line.contains("fast"))
        }
    }

    @Test("a re-read that finds the same mistyped value (refresh, a poll, the read after subscribing) doesn't report it again; a changed value is reported anew")
    func sameValueReReadIsNotReportedAgain() throws {
        let reported = ReportedLines()
        let override = Application.override(\.logger, with: reported.logger)
        defer { override.cancel() }
        let defaults = InMemoryDefaults(["Configuration/http.speed": "fast"])
        let provider = try KeyValueStoreConfigProvider(store: defaults, pollInterval: .seconds(3600))
        let reader = ConfigReader(providers: [provider])
        #expect(reader.int(forKey: "http.speed", default: 5) == 5)
        try provider.refresh()
        #expect(reader.int(forKey: "http.speed", default: 5) == 5)
        #expect(reported.all.count == 1, "\(reported.all)")
        defaults.set("faster", forKey: "Configuration/http.speed")
        try provider.refresh()
        #expect(reader.int(forKey: "http.speed", default: 5) == 5)
        #expect(reported.all.count == 2, "a changed value is a new problem: \(reported.all)")
    }

    @Test("snapshots describe, debug-describe and dump keys and kinds, never a value")
    func snapshotsRedact() async throws {
        let store = InMemorySyncStore()
        _ = try await store.write(Data(#""hunter2-0b1e""#.utf8), forKey: "Configuration/db.password")
        let sync = try await SyncStoreConfigProvider(store: store)
        let keyValue = try KeyValueStoreConfigProvider(store: InMemoryDefaults(["Configuration/db.password": "hunter2-0b1e"]), pollInterval: .seconds(3600))
        for provider in [sync as any ConfigProvider, keyValue] {
            let snapshot = provider.snapshot()
            var dumped = ""
            dump(snapshot, to: &dumped)
            var dumpedProvider = ""
            dump(provider, to: &dumpedProvider)
            for text in [String(describing: snapshot), String(reflecting: snapshot), dumped, dumpedProvider] {
                #expect(!text.contains("hunter2"), "\(text)")
            }
            #expect(String(describing: snapshot) == "\(provider.providerName)[1 values: Configuration/db.password (a string)]")
        }
    }

    @Test("a key that a SecureState declares is a secret without being listed")
    func secureStateKeysAreSecret() async throws {
        _ = Application.secureState(\.configuredDatabasePassword)
        let store = InMemorySyncStore()
        _ = try await store.write(Data(#""hunter2""#.utf8), forKey: "Configuration/db.password")
        _ = try await store.write(Data(#""db.internal""#.utf8), forKey: "Configuration/db.host")
        let provider = try await SyncStoreConfigProvider(store: store)
        let password = try provider.value(forKey: ["db", "password"], type: .string).value
        #expect(password?.isSecret == true)
        #expect(password?.description == "[string: <REDACTED>]")
        #expect(try provider.value(forKey: ["db", "host"], type: .string).value?.isSecret == false)
        let keyValue = try KeyValueStoreConfigProvider(store: InMemoryDefaults(["Configuration/db.password": "hunter2"]), pollInterval: .seconds(3600))
        #expect(try keyValue.value(forKey: ["db", "password"], type: .string).value?.isSecret == true)
    }
}
#endif
