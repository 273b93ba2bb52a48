#if Configuration
import AppStateKit
import AppStateKitConfiguration
import AppStateKitTesting
import Configuration
import Foundation
import Testing

extension Application {
    /// The setting `http.rateLimit` of a ``SyncStoreConfigProvider``, as a SyncState.
    fileprivate var configuredRateLimit: SyncState<Int> { syncState(initial: 100, feature: "Configuration", id: "http.rateLimit") }
}

@Suite("SyncStoreConfigProvider", .isolatedApplication, .reportsQuietly, .timeLimit(.minutes(1)))
struct SyncStoreConfigProviderTests {
    @Test("keys are \"<namespace>/<dotted key>\" and values natural JSON, so a SyncState of that key is the same setting")
    func sharesKeysAndJSONWithSyncState() async throws {
        let store = InMemorySyncStore()
        let provider = try await SyncStoreConfigProvider(store: store)
        try await provider.setValue(.int(200), forKey: "http.rateLimit")
        let record = try await store.fetchRecord(forKey: "Configuration/http.rateLimit")
        #expect(record.flatMap(\.value).map { String(decoding: $0, as: UTF8.self) } == "200")

        let override = Application.override(\.syncStore, with: store)
        defer { override.cancel() }
        let limit = Application.syncState(\.configuredRateLimit)
        #expect(limit.storeKey == "Configuration/http.rateLimit")
        #expect(try await limit.read() == 200)
        try await limit.write(300)
        #expect(try await provider.fetchValue(forKey: ["http", "rateLimit"], type: .int).value?.content == .int(300))
    }

    @Test("values written by hand read as the type asked for: 42 as an int and a double, base64 as bytes")
    func readsHandWrittenJSONByRequestedType() async throws {
        let store = InMemorySyncStore()
        _ = try await store.write(Data("42".utf8), forKey: "Configuration/n")
        _ = try await store.write(Data(#""bWFnaWM=""#.utf8), forKey: "Configuration/key")
        _ = try await store.write(Data("[1, 2.5]".utf8), forKey: "Configuration/weights")
        let provider = try await SyncStoreConfigProvider(store: store)
        #expect(try provider.value(forKey: ["n"], type: .int).value?.content == .int(42))
        #expect(try provider.value(forKey: ["n"], type: .double).value?.content == .double(42))
        #expect(try provider.value(forKey: ["key"], type: .bytes).value?.content == .bytes(Array("magic".utf8)))
        #expect(try provider.value(forKey: ["key"], type: .string).value?.content == .string("bWFnaWM="))
        #expect(try provider.value(forKey: ["weights"], type: .doubleArray).value?.content == .doubleArray([1, 2.5]))
        #expect(try provider.value(forKey: ["absent"], type: .int).value == nil)
    }

    @Test("a value of another type, a JSON object or invalid JSON throws naming the key, never the value")
    func mismatchesThrowNamingTheKey() async throws {
        let store = InMemorySyncStore()
        _ = try await store.write(Data(#""hunter2""#.utf8), forKey: "Configuration/db.password")
        _ = try await store.write(Data(#"{"a": 1}"#.utf8), forKey: "Configuration/object")
        _ = try await store.write(Data("not json".utf8), forKey: "Configuration/broken")
        let provider = try await SyncStoreConfigProvider(store: store)

        let mismatch = try #require(throws: ConfigStoreError.self) { try provider.value(forKey: ["db", "password"], type: .int) }
        #expect(mismatch.kind == .typeMismatch)
        #expect(mismatch.description == #"type mismatch for configuration key "Configuration/db.password": the stored value is a string, which does not read as int"#)
        #expect(!mismatch.description.contains("hunter2"))

        let object = try #require(throws: ConfigStoreError.self) { try provider.value(forKey: ["object"], type: .string) }
        #expect(object.kind == .unreadable)
        #expect(object.description == #"unreadable for configuration key "Configuration/object": the stored value is a JSON object, which no configuration type reads"#)

        let broken = try #require(throws: ConfigStoreError.self) { try provider.snapshot().value(forKey: ["broken"], type: .string) }
        #expect(broken.description == #"unreadable for configuration key "Configuration/broken": the stored value is the stored 8 bytes are not valid JSON, which no configuration type reads"#)
    }

    @Test("a double that is not finite is refused before anything is written")
    func refusesNonFiniteDoubles() async throws {
        let store = InMemorySyncStore()
        let provider = try await SyncStoreConfigProvider(store: store)
        let error = try await #require(throws: ConfigStoreError.self) { try await provider.setValue(.double(.infinity), forKey: "ratio") }
        #expect(error.kind == .unencodable)
        #expect(try await store.fetchRecord(forKey: "Configuration/ratio") == nil)
    }

    @Test("secrets are marked by dotted key, so swift-configuration redacts them")
    func marksSecrets() async throws {
        let store = InMemorySyncStore()
        _ = try await store.write(Data(#""hunter2""#.utf8), forKey: "Configuration/db.password")
        _ = try await store.write(Data(#""db.internal""#.utf8), forKey: "Configuration/db.host")
        let provider = try await SyncStoreConfigProvider(store: store, secrets: .specific(["db.password"]))
        let password = try provider.value(forKey: ["db", "password"], type: .string).value
        #expect(password?.isSecret == true)
        #expect(password?.description == "[string: <REDACTED>]")
        #expect(try provider.value(forKey: ["db", "host"], type: .string).value?.isSecret == false)
    }

    @Test("another process's write reaches value(forKey:) and watchers through the change feed")
    func followsOtherProcessesThroughTheFeed() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.file("sync.json")
        let provider = try await SyncStoreConfigProvider(store: LocalSyncStore(path: path))
        // A second store on the same file stands for another process.
        let admin = try await SyncStoreConfigProvider(store: LocalSyncStore(path: path))

        let updated = try await provider.watchValue(forKey: ["log", "level"], type: .string) { updates in
            var iterator = updates.makeAsyncIterator()
            #expect(try await iterator.next()?.get().value == nil)
            try await admin.setValue(.string("debug"), forKey: "log.level")
            return try await iterator.next()?.get().value?.content
        }
        #expect(updated == .string("debug"))
        #expect(try provider.value(forKey: ["log", "level"], type: .string).value?.content == .string("debug"))
    }

    @Test("watchSnapshot emits a snapshot now and one after each change; a removal reads as absent")
    func watchesSnapshots() async throws {
        let store = InMemorySyncStore()
        let provider = try await SyncStoreConfigProvider(store: store)
        try await provider.setValue(.bool(true), forKey: "feature.checkout")
        let values = try await provider.watchSnapshot { updates in
            var iterator = updates.makeAsyncIterator()
            var seen: [ConfigContent?] = []
            seen.append(try await iterator.next()?.value(forKey: ["feature", "checkout"], type: .bool).value?.content)
            // Written to the store directly, as another instance would: the feed brings it.
            _ = try await store.write(nil, forKey: "Configuration/feature.checkout")
            seen.append(try await iterator.next()?.value(forKey: ["feature", "checkout"], type: .bool).value?.content)
            return seen
        }
        #expect(values == [.bool(true), nil])
    }

    @Test("keys of other namespaces and SyncStates are not the provider's")
    func keepsToItsNamespace() async throws {
        let store = InMemorySyncStore()
        _ = try await store.write(Data("1".utf8), forKey: "App/flags")
        _ = try await store.write(Data("2".utf8), forKey: "Other/limit")
        _ = try await store.write(Data("3".utf8), forKey: "Other/http.limit")
        let provider = try await SyncStoreConfigProvider(store: store, namespace: "Other")
        #expect(try provider.value(forKey: ["limit"], type: .int).value?.content == .int(2))
        #expect(try provider.value(forKey: ["http", "limit"], type: .int).value?.content == .int(3))
        #expect(try provider.value(forKey: ["App", "flags"], type: .int).value == nil)
        #expect(provider.description == "SyncStoreConfigProvider[Other][2 values, 0 watchers]")
    }

    @Test("while the store is unreachable reads serve the last values, fetch and writes throw; reload catches up")
    func servesLastValuesWhileUnreachable() async throws {
        let store = UnreachableSyncStore()
        _ = try await store.write(Data("100".utf8), forKey: "Configuration/http.rateLimit")
        let provider = try await SyncStoreConfigProvider(store: store)
        store.setReachable(false)

        #expect(try provider.value(forKey: ["http", "rateLimit"], type: .int).value?.content == .int(100))
        let fetchError = try await #require(throws: SyncStoreError.self) { try await provider.fetchValue(forKey: ["http", "rateLimit"], type: .int) }
        #expect(fetchError.kind == .unavailable)
        await #expect(throws: SyncStoreError.self) { try await provider.setValue(.int(5), forKey: "http.rateLimit") }
        await #expect(throws: SyncStoreError.self) { try await provider.reload() }
        #expect(try provider.value(forKey: ["http", "rateLimit"], type: .int).value?.content == .int(100))

        // Changed behind the provider's back (a restore): only a reload takes a lower version.
        store.restore([SyncRecord(key: "Configuration/http.rateLimit", value: Data("7".utf8), version: 1)])
        store.setReachable(true)
        try await provider.reload()
        #expect(try provider.value(forKey: ["http", "rateLimit"], type: .int).value?.content == .int(7))
    }

    @Test("a replacement on the change feed wins whatever the versions; keys missing from it are gone")
    func takesReplacements() async throws {
        let store = UnreachableSyncStore()
        _ = try await store.write(Data("100".utf8), forKey: "Configuration/http.rateLimit")
        _ = try await store.write(Data("100".utf8), forKey: "Configuration/http.rateLimit")
        _ = try await store.write(Data("true".utf8), forKey: "Configuration/flags.readOnly")
        let provider = try await SyncStoreConfigProvider(store: store)
        let seen = try await provider.watchValue(forKey: ["http", "rateLimit"], type: .int) { updates in
            var iterator = updates.makeAsyncIterator()
            #expect(try await iterator.next()?.get().value?.content == .int(100))
            store.announceReplacement([SyncRecord(key: "Configuration/http.rateLimit", value: Data("7".utf8), version: 1)])
            return try await iterator.next()?.get().value?.content
        }
        #expect(seen == .int(7))
        #expect(try provider.value(forKey: ["flags", "readOnly"], type: .bool).value == nil)
    }

    @Test("a provider can't be created while the store can't take a snapshot")
    func creationNeedsTheStore() async throws {
        let store = UnreachableSyncStore()
        store.setReachable(false)
        await #expect(throws: SyncStoreError.self) { try await SyncStoreConfigProvider(store: store) }
    }

    @Test("ConfigReader: the environment takes precedence over the fleet's value, which takes precedence over the default")
    func precedenceInAConfigReader() async throws {
        let fleet = try await SyncStoreConfigProvider(store: InMemorySyncStore())
        try await fleet.setValue(.int(200), forKey: "http.rateLimit")
        try await fleet.setValue(.string("debug"), forKey: "log.level")
        let environment = EnvironmentVariablesProvider(environmentVariables: ["LOG_LEVEL": "error"])
        let config = ConfigReader(providers: [environment, fleet])
        #expect(config.string(forKey: "log.level", default: "info") == "error")
        #expect(config.int(forKey: "http.rateLimit", default: 100) == 200)
        #expect(config.int(forKey: "http.timeout", default: 30) == 30)
    }
}
#endif
