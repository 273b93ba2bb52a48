#if PostgreSQL
import AppStateKitPostgres
import AppStateKitTesting
import Foundation
import PostgresNIO
import Testing

/// The PostgreSQL store's stops (listed in Documentation/ErrorHandling.md), with their messages.
/// Neither needs a server: both are checked before any connection is made.
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

    @Test("running one store a second time stops with what to do")
    func secondRunStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = PostgresSyncStore(client: Self.unconnectedClient(), table: "stop_test")
            // The first run claims the store at once; cancelled before it connects, it returns.
            let first = Task { try await store.run() }
            first.cancel()
            _ = await first.result
            try await store.run()   // Never returns: the second run stops the process.
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains(
            "AppStateKit: PostgresSyncStore.run() was called a second time; run each store once, for the life of the process (in a ServiceGroup or one task), and create a new store to run again"
        ))
    }
}
#endif
