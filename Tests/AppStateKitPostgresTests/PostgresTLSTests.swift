#if PostgreSQL
import AppStateKit
import AppStateKitPostgres
import AppStateKitTesting
import Foundation
import PostgresNIO
import Testing

/// The store over TLS, verified against the throw-away certificate .ci/postgres/enable-tls.sh
/// made (APPSTATEKIT_POSTGRES_TLS_CA; CI's .ci/steps/51-postgres-hostile.sh sets it): the
/// connection is encrypted, the server's certificate is checked, and a client that trusts
/// another certificate is refused before it sends the password.
enum PostgresTLSCertificate {
    /// The certificate .ci/postgres/enable-tls.sh made, when TLS is on.
    static let path = ProcessInfo.processInfo.environment["APPSTATEKIT_POSTGRES_TLS_CA"]
}

extension PostgresServerTests {
@Suite(.isolatedApplication, .enabled(if: PostgresTLSCertificate.path != nil, "APPSTATEKIT_POSTGRES_TLS_CA is not set: turn TLS on with .ci/postgres/enable-tls.sh"))
struct PostgresTLSTests {

    /// The app role's settings with TLS required and the server verified against `trusting`.
    static func configuration(trusting certificate: String) throws -> PostgresClient.Configuration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificate)
        tls.certificateVerification = .fullVerification
        var configuration = PostgresTestServer.configuration(applicationName: "AppStateKitPostgresTests-tls")
        configuration.tls = .require(tls)
        return configuration
    }

    @Test("a store connects with TLS required and the server's certificate verified, and syncs")
    func storeOverVerifiedTLS() async throws {
        let certificate = try #require(PostgresTLSCertificate.path)
        let table = PostgresTestServer.uniqueTable("tls")
        var storeConfiguration = PostgresTestServer.storeConfiguration(table: table)
        try await PostgresTestServer.createTable(storeConfiguration)
        storeConfiguration.createsTable = false
        let client = PostgresClient(configuration: try Self.configuration(trusting: certificate))
        let store = PostgresSyncStore(client: client, configuration: storeConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await store.waitUntilReady(timeout: .seconds(30))
            _ = try await store.write(.json("true"), forKey: "App/tls")
            #expect(PostgresTestServer.text(try await store.fetchRecord(forKey: "App/tls")) == "true")
            let rows = try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            var encrypted: [Bool] = []
            for try await ssl in rows.decode(Bool.self) { encrypted.append(ssl) }
            #expect(encrypted == [true])
        }
        try await PostgresTestServer.dropTable(storeConfiguration)
    }

    @Test("a client that trusts another certificate is refused")
    func otherCertificateIsRefused() async throws {
        // A certificate the server's was not signed with: the system's trust store has no
        // throw-away certificate, so verification against it fails.
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        let configuration = PostgresConnection.Configuration(
            host: PostgresTestServer.host ?? "127.0.0.1", port: PostgresTestServer.port ?? 5432,
            username: PostgresTestServer.appUser ?? "appstatekit_app", password: PostgresTestServer.appPassword,
            database: PostgresTestServer.environment["APPSTATEKIT_POSTGRES_DATABASE"], tls: .require(try NIOSSLContext(configuration: tls))
        )
        await #expect(throws: (any Error).self) {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Logger(label: "tls-refused"))
            try await connection.close()
        }
    }
}
}
#endif
