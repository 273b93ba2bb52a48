#if Configuration
import AppStateKit
import AppStateKitConfiguration
import AppStateKitTesting
import Configuration
import Foundation
import Synchronization
import Testing

extension Application {
    /// The setting `http.port` of a ``KeyValueStoreConfigProvider``, as a StoredState.
    fileprivate var configuredPort: StoredState<Int> { storedState(initial: 80, feature: "Configuration", id: "http.port") }
}

@Suite("KeyValueStoreConfigProvider", .isolatedApplication, .reportsQuietly, .timeLimit(.minutes(1)))
struct KeyValueStoreConfigProviderTests {
    @Test("values are property-list values under \"<namespace>/<dotted key>\", so a StoredState of that key is the same setting")
    func sharesKeysWithStoredState() async throws {
        let store = InMemoryDefaults()
        let provider = try KeyValueStoreConfigProvider(store: store)
        try provider.setValue(.int(8080), forKey: "http.port")
        try provider.setValue(.bytes(Array("magic".utf8)), forKey: "tls.ticketKey")
        #expect(store.object(forKey: "Configuration/http.port") as? Int == 8080)
        #expect(store.object(forKey: "Configuration/tls.ticketKey") as? Data == Data("magic".utf8))

        let override = Application.override(\.userDefaults, with: store)
        defer { override.cancel() }
        var port = Application.storedState(\.configuredPort)
        #expect(port.storageKey == "Configuration/http.port")
        #expect(port.value == 8080)
        port.value = 9090
        #expect(try await provider.fetchValue(forKey: ["http", "port"], type: .int).value?.content == .int(9090))
    }

    @Test("an Int reads as a double, a Bool does not read as an int")
    func readsByRequestedType() throws {
        let store = InMemoryDefaults(["Configuration/n": 3, "Configuration/on": true])
        let provider = try KeyValueStoreConfigProvider(store: store)
        #expect(try provider.value(forKey: ["n"], type: .double).value?.content == .double(3))
        let error = try #require(throws: ConfigStoreError.self) { try provider.value(forKey: ["on"], type: .int) }
        #expect(error.description == #"type mismatch for configuration key "Configuration/on": the stored value is a Boolean, which does not read as int"#)
    }

    @Test("another process's write reaches value(forKey:) and watchers at the next poll")
    func pollsForOtherProcessesWrites() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let provider = try KeyValueStoreConfigProvider(store: FileKeyValueStore(path: path), pollInterval: .milliseconds(10))
        // A second store on the same file stands for another process.
        let other = FileKeyValueStore(path: path)
        let seen = try await provider.watchValue(forKey: ["log", "level"], type: .string) { updates in
            var iterator = updates.makeAsyncIterator()
            #expect(try await iterator.next()?.get().value == nil)
            try other.writeObject("debug", forKey: "Configuration/log.level")
            return try await iterator.next()?.get().value?.content
        }
        #expect(seen == .string("debug"))
        #expect(try provider.value(forKey: ["log", "level"], type: .string).value?.content == .string("debug"))
    }

    @Test("refresh() reads the namespace now: removed keys read as absent, watchers hear of it")
    func refreshTakesRemovals() async throws {
        let store = InMemoryDefaults(["Configuration/feature.checkout": true, "App/other": 1])
        let provider = try KeyValueStoreConfigProvider(store: store, pollInterval: .seconds(3600))
        let seen = try await provider.watchSnapshot { updates in
            var iterator = updates.makeAsyncIterator()
            var seen: [ConfigContent?] = []
            seen.append(try await iterator.next()?.value(forKey: ["feature", "checkout"], type: .bool).value?.content)
            store.removeObject(forKey: "Configuration/feature.checkout")
            try provider.refresh()
            seen.append(try await iterator.next()?.value(forKey: ["feature", "checkout"], type: .bool).value?.content)
            return seen
        }
        #expect(seen == [.bool(true), nil])
        #expect(try provider.value(forKey: ["App", "other"], type: .int).value == nil)
    }

    @Test("a poll that can't read the store keeps the values and is reported once until one succeeds")
    func reportsPollFailuresOnce() async throws {
        let store = FlakyKeyValueStore()
        store.set(5, forKey: "Configuration/retries")
        let reported = Mutex<[String]>([])
        let logger = ApplicationLogger(error: { line in reported.withLock { $0.append(line) } })
        let override = Application.override(\.logger, with: logger)
        defer { override.cancel() }
        let provider = try KeyValueStoreConfigProvider(store: store, pollInterval: .milliseconds(5))
        // The first read starts the polling worker (the initialiser starts nothing).
        #expect(try provider.value(forKey: ["retries"], type: .int).value?.content == .int(5))
        store.failing.store(true, ordering: .sequentiallyConsistent)
        let listingsBefore = store.listings.load(ordering: .sequentiallyConsistent)
        while store.listings.load(ordering: .sequentiallyConsistent) < listingsBefore + 5 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try provider.value(forKey: ["retries"], type: .int).value?.content == .int(5))
        #expect(reported.withLock { $0 } == [
            "AppStateKitConfiguration: KeyValueStoreConfigProvider[Configuration] could not read its store; serving the values it read last (the test's store can't be read)",
        ])

        store.failing.store(false, ordering: .sequentiallyConsistent)
        store.set(6, forKey: "Configuration/retries")
        let seen = try await provider.watchValue(forKey: ["retries"], type: .int) { updates in
            try await firstMatching(updates) { try $0.get().value?.content == .int(6) }
        }
        #expect(try seen?.get().value?.content == .int(6))
    }
}

/// A listable store whose reads fail on demand; counts how often its keys were listed (once a
/// poll).
final class FlakyKeyValueStore: ListableKeyValueStore {
    struct Unreadable: Error, CustomStringConvertible {
        var description: String { "the test's store can't be read" }
    }

    let inner = InMemoryDefaults()
    let failing = Atomic<Bool>(false)
    let listings = Atomic<Int>(0)

    var keys: [String] {
        get throws {
            listings.add(1, ordering: .sequentiallyConsistent)
            if failing.load(ordering: .sequentiallyConsistent) { throw Unreadable() }
            return inner.keys
        }
    }

    func object(forKey key: String) -> Any? { inner.object(forKey: key) }
    func set(_ value: Any?, forKey key: String) { inner.set(value, forKey: key) }
    func removeObject(forKey key: String) { inner.removeObject(forKey: key) }
}
#endif
