#if PostgreSQL
import AppStateKit
import AppStateKitPostgres
import AppStateKitTesting
import Foundation
import PostgresNIO
import Testing

/// The PostgreSQL store's stops (listed in Documentation/ErrorHandling.md), with their messages.
/// None needs a server: each is checked before any connection is made.
@Suite("PostgreSQL store stops", .isolatedApplication)
struct PostgresStopTests {
    /// A client that is never run: both stops come before any connection.
    static func unconnectedClient() -> PostgresClient {
        PostgresClient(configuration: .init(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable))
    }

    @Test("a table name that is not a plain identifier stops with the rule")
    func invalidTableNameStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PostgresSyncStore(client: Self.unconnectedClient(), table: "Bad-Name")
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains(
            #"AppStateKit: PostgresSyncStore's table name "Bad-Name" is not usable: use 1 to 50 characters of a-z, 0-9 and _, not starting with a digit"#
        ))
    }

    @Test("a configuration read at run time: init(client:validating:) throws refused, naming the setting and the rule, for each rule")
    func validatingInitThrows() throws {
        var configurations: [(PostgresSyncStore.Configuration, String)] = []
        var table = PostgresSyncStore.Configuration()
        table.table = "Bad-Name"
        configurations.append((table, #"PostgresSyncStore's table name "Bad-Name" is not usable: use 1 to 50 characters of a-z, 0-9 and _, not starting with a digit"#))
        var schema = PostgresSyncStore.Configuration()
        schema.schema = "1schema"
        configurations.append((schema, #"PostgresSyncStore's schema name "1schema" is not usable"#))
        var namespace = PostgresSyncStore.Configuration()
        namespace.namespace = "a b"
        configurations.append((namespace, #"PostgresSyncStore's namespace "a b" is not usable: use 1 to 40 characters of A-Z, a-z, 0-9, _, - and ."#))
        var channel = PostgresSyncStore.Configuration()
        channel.schema = String(repeating: "s", count: 30)
        channel.table = String(repeating: "t", count: 30)
        channel.namespace = "ns"
        configurations.append((channel, "is longer than PostgreSQL's 63 bytes: shorten the table, schema or namespace"))
        for (configuration, message) in configurations {
            let error = try #require(throws: SyncStoreError.self) {
                _ = try PostgresSyncStore(client: Self.unconnectedClient(), validating: configuration)
            }
            #expect(error.kind == .refused)
            #expect(error.description.contains(message), "\(error)")
        }
        var valid = PostgresSyncStore.Configuration()
        valid.namespace = "checkout"
        #expect(try PostgresSyncStore(client: Self.unconnectedClient(), validating: valid).configuration.namespace == "checkout")
    }

    @Test("running one store a second time throws what to do, and leaves the store alone")
    func secondRunThrows() async throws {
        let store = PostgresSyncStore(client: Self.unconnectedClient(), table: "stop_test")
        // The first run claims the store at once; cancelled before it connects, it returns.
        let first = Task { try await store.run() }
        first.cancel()
        _ = await first.result
        let error = try await #require(throws: SyncStoreError.self) { try await store.run() }
        #expect(error.kind == .refused)
        #expect(error.description.contains(
            "PostgresSyncStore.run() was called a second time (table stop_test); run each store once, for the life of the process (in a ServiceGroup or one task), and create a new store to run again"
        ))
    }
}
#endif
