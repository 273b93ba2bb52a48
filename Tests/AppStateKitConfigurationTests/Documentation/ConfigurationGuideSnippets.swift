#if Configuration
import AppStateKit
import AppStateKitConfiguration
import AppStateKitTesting
import Configuration
import Foundation
import Synchronization
import Testing

// The ```swift blocks of Documentation/Configuration.md, compiled and run.

extension Application {
    var rateLimit: SyncState<Int> { syncState(initial: 100, feature: "Configuration", id: "http.rateLimit") }
}

@Suite("Configuration.md", .isolatedApplication, .reportsQuietly, .timeLimit(.minutes(1)))
struct ConfigurationGuideSnippets {
    @Test("a fleet-wide setting in a ConfigReader, changed and watched")
    func fleetSetting() async throws {
        let fleet = try await SyncStoreConfigProvider(store: Application.dependency(\.syncStore))
        let config = ConfigReader(providers: [EnvironmentVariablesProvider(), fleet])

        let rateLimit = config.int(forKey: "http.rateLimit", default: 100)
        #expect(rateLimit == 100)

        let currentLimit = Atomic<Int>(0)
        let watcher = Task {
            try await config.watchInt(forKey: "http.rateLimit", default: 100) { updates in
                for await limit in updates {
                    currentLimit.store(limit, ordering: .relaxed)
                }
            }
        }
        try await fleet.setValue(.int(200), forKey: "http.rateLimit")
        while currentLimit.load(ordering: .relaxed) != 200 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(config.int(forKey: "http.rateLimit", default: 100) == 200)
        #expect(try await Application.syncState(\.rateLimit).read() == 200)

        try await fleet.setValue(nil, forKey: "http.rateLimit")
        while currentLimit.load(ordering: .relaxed) != 100 { try await Task.sleep(for: .milliseconds(1)) }
        watcher.cancel()
        try await watcher.value
        #expect(config.int(forKey: "http.rateLimit", default: 100) == 100)
    }

    @Test("an admin sets a setting for the fleet and removes it again")
    func changing() async throws {
        let fleet = try await SyncStoreConfigProvider(store: Application.dependency(\.syncStore))
        let otherInstance = try await SyncStoreConfigProvider(store: Application.dependency(\.syncStore))
        try await fleet.setValue(.int(200), forKey: "http.rateLimit")
        try await fleet.setValue(nil, forKey: "http.rateLimit")
        let versions = try await Application.dependency(\.syncStore).snapshot().map(\.version)
        #expect(versions == [2])
        #expect(try await otherInstance.fetchValue(forKey: ["http", "rateLimit"], type: .int).value == nil)
    }

    @Test("the environment comes first: HTTP_RATE_LIMIT pins the setting")
    func environmentFirst() async throws {
        let fleet = try await SyncStoreConfigProvider(store: Application.dependency(\.syncStore))
        try await fleet.setValue(.int(200), forKey: "http.rateLimit")
        let config = ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: ["HTTP_RATE_LIMIT": "50"]), fleet])
        #expect(config.int(forKey: "http.rateLimit", default: 100) == 50)
        let fleetFirst = ConfigReader(providers: [fleet, EnvironmentVariablesProvider(environmentVariables: ["HTTP_RATE_LIMIT": "50"])])
        #expect(fleetFirst.int(forKey: "http.rateLimit", default: 100) == 200)
    }

    @Test("a value of the wrong type: the reader returns the default, the required read throws")
    func wrongType() async throws {
        let store = InMemorySyncStore()
        _ = try await store.write(Data(#""many""#.utf8), forKey: "Configuration/http.rateLimit")
        let fleet = try await SyncStoreConfigProvider(store: store)
        let config = ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: [:]), fleet])
        #expect(config.int(forKey: "http.rateLimit", default: 100) == 100)
        #expect(throws: ConfigStoreError.self) { try config.requiredInt(forKey: "http.rateLimit") }
    }

    @Test("secrets are redacted")
    func secrets() async throws {
        let store = InMemorySyncStore()
        let secured = try await SyncStoreConfigProvider(store: store, secrets: .specific(["db.password"]))
        try await secured.setValue(.string("hunter2"), forKey: "db.password")
        #expect(try secured.value(forKey: ["db", "password"], type: .string).value?.description == "[string: <REDACTED>]")
    }

    @Test("a setting on one machine")
    func localSetting() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let settingsPath = directory.file("settings.json")

        let local = try KeyValueStoreConfigProvider(store: FileKeyValueStore(path: settingsPath))
        let localConfig = ConfigReader(providers: [EnvironmentVariablesProvider(), local])

        try local.setValue(.string("debug"), forKey: "log.level")
        #expect(localConfig.string(forKey: "log.level", default: "info") == "debug")
        #expect(FileKeyValueStore(path: settingsPath).object(forKey: "Configuration/log.level") as? String == "debug")
    }
}
#endif
