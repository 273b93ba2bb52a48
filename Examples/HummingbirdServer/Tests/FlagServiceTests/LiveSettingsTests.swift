import AppStateKit
import AppStateKitConfiguration
import AppStateKitTesting
import Configuration
import FlagService
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The live setting `flags.readOnly`: flipped through one instance's admin route, read by
/// another instance's `ConfigReader` from the store they share.
@Suite(.isolatedApplication, .overriding(\.flagRepository, with: InMemoryFlagRepository()))
struct LiveSettingsTests {
    @Test func readOnlyFlipsForEveryInstanceSharingTheStore() async throws {
        let store = InMemorySyncStore()
        let thisInstance = LiveSettings(environment: EnvironmentVariablesProvider(environmentVariables: [:]), shared: try await SyncStoreConfigProvider(store: store))
        let otherInstance = LiveSettings(environment: EnvironmentVariablesProvider(environmentVariables: [:]), shared: try await SyncStoreConfigProvider(store: store))
        AppStateKit.Application.promote(\.liveSettings, with: thisInstance)
        let body = #"{"enabled":true}"#

        try await buildServer(port: 0, logger: Logger(label: "test")).test(.router) { client in
            try await client.execute(uri: "/api/flags/beta", method: .put, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/config/readOnly", method: .put, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/flags/beta", method: .put, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .serviceUnavailable)
            }
            try await client.execute(uri: "/api/flags/beta", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        // The other instance hears of it through the store's change feed.
        let seen = try await otherInstance.reader.watchBool(forKey: "flags.readOnly", default: false) { updates in
            for try await value in updates where value { return value }
            return false
        }
        #expect(seen)
    }

    @Test func theEnvironmentTakesPrecedence() async throws {
        let shared = try await SyncStoreConfigProvider(store: InMemorySyncStore())
        try await shared.setValue(.bool(true), forKey: "flags.readOnly")
        let settings = LiveSettings(environment: EnvironmentVariablesProvider(environmentVariables: ["FLAGS_READ_ONLY": "false"]), shared: shared)
        #expect(!settings.isReadOnly)
        #expect(LiveSettings(environment: EnvironmentVariablesProvider(environmentVariables: [:]), shared: shared).isReadOnly)
    }

    @Test func withoutASharedStoreTheSettingCantBeChanged() async throws {
        AppStateKit.Application.promote(\.liveSettings, with: LiveSettings(environment: EnvironmentVariablesProvider(environmentVariables: [:])))
        try await buildServer(port: 0, logger: Logger(label: "test")).test(.router) { client in
            try await client.execute(uri: "/api/config/readOnly", method: .put, body: ByteBuffer(string: #"{"enabled":true}"#)) { response in
                #expect(response.status == .notImplemented)
            }
        }
    }
}
