#if PostgreSQL
import AppStateKit
import AppStateKitTesting
import AppStateKitPostgres
import Foundation
import PostgresNIO
import Testing

/// Readiness and the last-known-good copy: `waitUntilReady(timeout:)` returns once values are
/// loaded — from the table, or from the copy when PostgreSQL can't be reached at boot.
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresReadinessTests {
    /// A client for a port nothing listens on: PostgreSQL "down" at boot.
    static func unreachableClient() -> PostgresClient {
        var configuration = PostgresClient.Configuration(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable)
        configuration.options.connectTimeout = .milliseconds(500)
        return PostgresClient(configuration: configuration)
    }

    @Test func waitUntilReadyReturnsWithTheTablesValuesLoaded() async throws {
        let table = PostgresTestServer.uniqueTable("ready")
        try await PostgresTestServer.withStore(table: table) { writer, _ in
            _ = try await writer.write(.json(#"{"maintenance":true}"#), forKey: "App/flags")
            let client = PostgresClient(configuration: PostgresTestServer.configuration)
            let store = PostgresSyncStore(client: client, configuration: PostgresTestServer.storeConfiguration(table: table))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                group.addTask { try await store.run() }
                defer { group.cancelAll() }
                try await store.waitUntilReady(timeout: .seconds(30))
                // No polling: once ready, the value is there.
                #expect(PostgresTestServer.text(try store.cachedRecord(forKey: "App/flags")) == #"{"maintenance":true}"#)
            }
        }
    }

    @Test func waitUntilReadyThrowsWhenNothingCanBeLoaded() async throws {
        let client = Self.unreachableClient()
        let store = PostgresSyncStore(client: client, configuration: PostgresTestServer.storeConfiguration(table: "unreachable", operationTimeout: .seconds(1)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            let error = await #expect(throws: SyncStoreError.self) { try await store.waitUntilReady(timeout: .seconds(3)) }
            #expect(error?.kind == .unavailable)
            #expect(error?.detail.hasPrefix("the sync store PostgresSyncStore (table unreachable) was not ready within 3.0 seconds; its status: unavailable since") == true, "\(String(describing: error))")
            let cached = try store.cachedRecord(forKey: "App/flags")
            #expect(cached == nil)
        }
    }

    @Test func theLastKnownGoodCopyIsServedWhenPostgreSQLIsUnreachableAtBoot() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lkg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("flags.json")
        let table = PostgresTestServer.uniqueTable("lkg")
        // A running instance keeps the copy up to date.
        try await PostgresTestServer.withStore(table: table, configure: { $0.lastKnownGoodFile = file }) { store, _ in
            _ = try await store.write(.json("true"), forKey: "App/maintenance")
            try await PostgresTestServer.eventually("the copy to hold the write") {
                let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                return text.contains("App\\/maintenance") || text.contains("App/maintenance")
            }
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A new instance boots while PostgreSQL can't be reached: it serves the copy.
        let client = Self.unreachableClient()
        var configuration = PostgresTestServer.storeConfiguration(table: table, operationTimeout: .seconds(1))
        configuration.lastKnownGoodFile = file
        let store = PostgresSyncStore(client: client, configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await store.waitUntilReady(timeout: .seconds(30))
            #expect(PostgresTestServer.text(try store.cachedRecord(forKey: "App/maintenance")) == "true")
            guard case .stale(let savedAt, let reason) = store.currentStatus else {
                Issue.record("status is \(store.currentStatus), not stale (serving the last-known-good copy)")
                return
            }
            #expect(savedAt <= Date())
            #expect(reason.hasPrefix("serving the last-known-good copy since "))
            #expect(reason.contains("(PostgreSQL can't be reached: "))
            var statuses = store.statusUpdates().makeAsyncIterator()
            #expect(await statuses.next()?.description.hasPrefix("stale since \(savedAt): serving the last-known-good copy") == true)
            let error = await #expect(throws: SyncStoreError.self) { _ = try await store.write(.json("false"), forKey: "App/maintenance") }
            #expect(error?.kind == .unavailable)
        }
    }
}
}
#endif
