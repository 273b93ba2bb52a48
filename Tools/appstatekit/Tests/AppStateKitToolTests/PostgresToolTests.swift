import AppStateKit
import AppStateKitPostgres
import AppStateKitTesting
import ArgumentParser
import Foundation
import PostgresNIO
import Testing
@testable import appstatekit

fileprivate extension Application {
    var toolFleetFlag: SyncState<Bool> { syncState(initial: false, feature: "App", id: "fleetFlag") }
}

/// The PostgreSQL server `.ci/postgres/start.sh` started: APPSTATEKIT_POSTGRES_HOST, _PORT,
/// _DATABASE, the superuser _USER, the owner role _OWNER, the app role _APP_USER with
/// _APP_PASSWORD, and APPSTATEKIT_PGBOUNCER_PORT (PgBouncer in transaction mode). Without them
/// every test here is skipped, saying so.
enum ToolPostgresServer {
    static let environment = ProcessInfo.processInfo.environment
    static let host = environment["APPSTATEKIT_POSTGRES_HOST"]
    static let port = environment["APPSTATEKIT_POSTGRES_PORT"].flatMap(Int.init)
    static let superuser = environment["APPSTATEKIT_POSTGRES_USER"]
    static let owner = environment["APPSTATEKIT_POSTGRES_OWNER"]
    static let appUser = environment["APPSTATEKIT_POSTGRES_APP_USER"]
    static let appPassword = environment["APPSTATEKIT_POSTGRES_APP_PASSWORD"]
    static let database = environment["APPSTATEKIT_POSTGRES_DATABASE"]
    static let bouncerPort = environment["APPSTATEKIT_PGBOUNCER_PORT"].flatMap(Int.init)

    static let isConfigured = host != nil && port != nil && superuser != nil && owner != nil && appUser != nil

    static let skipReason: Comment = "no PostgreSQL server configured: start one with `eval \"$(.ci/postgres/start.sh)\"` (sets APPSTATEKIT_POSTGRES_HOST/PORT/USER/DATABASE, _OWNER, _APP_USER/_APP_PASSWORD and APPSTATEKIT_PGBOUNCER_PORT), as .ci/steps/55-operator-tool.sh does"

    static func configuration(user: String, password: String?, port: Int? = nil) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host ?? "127.0.0.1", port: port ?? self.port ?? 5432, username: user, password: password, database: database, tls: .disable
        )
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// Runs `sql` (one statement) as `user` (trusted on loopback in the test cluster).
    static func run(_ sql: String, as user: String?) async throws {
        let client = PostgresClient(configuration: configuration(user: user ?? "appstatekit", password: nil))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }

    /// The tool's environment for the app role: the password only through the variable.
    static func toolEnvironment(user: String? = appUser, port: Int? = nil) -> [String: String?] {
        var environment: [String: String?] = ["APPSTATEKIT_POSTGRES_USER": user, "APPSTATEKIT_POSTGRES_PASSWORD": user == appUser ? appPassword : nil]
        if let port { environment["APPSTATEKIT_POSTGRES_PORT"] = String(port) }
        return environment
    }

    static func uniqueTable(_ purpose: String) -> String {
        "tool_\(purpose)_\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Creates `table` as the owner (the app role gets its grants by default privileges).
    static func createTable(_ table: String) async throws {
        var configuration = PostgresSyncStore.Configuration()
        configuration.table = table
        try await run(PostgresSyncStore.migrationSQL(configuration: configuration), as: owner)
    }

    static func dropTable(_ table: String) async throws {
        try await run("DROP TABLE IF EXISTS \"\(table)\"", as: owner)
    }
}

/// `appstatekit sync --postgres` and `doctor --postgres` against the real server, run as the
/// built binary beside an app instance connected to the same table.
@Suite("appstatekit sync and doctor: PostgreSQL", .serialized, .isolatedApplication, .enabled(if: ToolPostgresServer.isConfigured, ToolPostgresServer.skipReason))
struct PostgresToolTests {
    @Test("a sync set from the tool reaches an app instance on the same table through its NOTIFY (no reconciliation runs meanwhile); get, list, update and delete work on the table")
    func setReachesAppInstance() async throws {
        let table = ToolPostgresServer.uniqueTable("e2e")
        try await ToolPostgresServer.createTable(table)
        defer { Task { try? await ToolPostgresServer.dropTable(table) } }
        var configuration = PostgresSyncStore.Configuration()
        configuration.table = table
        configuration.createsTable = false
        // Only the tool's NOTIFY can bring the value within the test's hang guard: no
        // reconciliation runs meanwhile.
        configuration.reconcileInterval = .seconds(3600)
        let client = PostgresClient(configuration: ToolPostgresServer.configuration(user: ToolPostgresServer.appUser ?? "", password: ToolPostgresServer.appPassword))
        let store = PostgresSyncStore(client: client, configuration: configuration)
        let environment = ToolPostgresServer.toolEnvironment()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            let storeRun = Task { try await store.run() }
            defer {
                storeRun.cancel()
                group.cancelAll()
            }
            try await store.waitUntilReady(timeout: .seconds(30))
            Application.promote(\.syncStore, with: store)
            let values = Application.values(of: \.toolFleetFlag)
            let clock = ContinuousClock()
            let elapsed = await syncWithin(.seconds(120)) { () -> Duration? in
                var iterator = values.makeAsyncIterator()
                guard await iterator.next() == false else { return nil }
                // Measured from the tool's launch: its process start, connection, commit and
                // notification, and the app's fetch.
                let launched = clock.now
                async let result = try? SyncTool.run(["sync", "set", "App/fleetFlag", "true", "--postgres", "--table", table], environment: environment)
                var seenAfter: Duration?
                while let value = await iterator.next() {
                    if value {
                        seenAfter = clock.now - launched
                        break
                    }
                }
                let finished = await result
                guard finished?.status == 0 else {
                    Issue.record("sync set failed: \(finished?.stderr ?? "not run")")
                    return nil
                }
                return seenAfter
            }
            let propagation = try #require(elapsed ?? nil)
            print("propagation (appstatekit sync set launched → app instance's values stream has it): \(propagation)")

            let get = try await SyncTool.run(["sync", "get", "App/fleetFlag", "--postgres", "--table", table, "--json"], environment: environment)
            #expect(get.status == 0, "\(get.stderr)")
            let object = try #require(syncJSONObject(get.stdout.split(separator: "\n").first ?? ""))
            #expect(object["value"] as? Bool == true)
            let version = (object["version"] as? NSNumber)?.int64Value ?? -1
            #expect(version == 1)

            let wrong = try await SyncTool.run(["sync", "update", "App/fleetFlag", "false", "--expect", "5", "--postgres", "--table", table], environment: environment)
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("version 1, not 5"))
            let right = try await SyncTool.run(["sync", "update", "App/fleetFlag", "false", "--expect", "1", "--postgres", "--table", table], environment: environment)
            #expect(right.status == 0, "\(right.stderr)")
            #expect(try await store.fetchRecord(forKey: "App/fleetFlag") == SyncRecord(key: "App/fleetFlag", value: Data("false".utf8), version: 2))

            let list = try await SyncTool.run(["sync", "list", "--postgres", "--table", table, "--json"], environment: environment)
            let listed = try #require(syncJSONObject(list.stdout.split(separator: "\n").first ?? ""))
            #expect((listed["entries"] as? [[String: Any]])?.compactMap { $0["key"] as? String } == ["App/fleetFlag"])

            let delete = try await SyncTool.run(["sync", "delete", "App/fleetFlag", "--postgres", "--table", table], environment: environment)
            #expect(delete.status == 0, "\(delete.stderr)")
            #expect(try await store.fetchRecord(forKey: "App/fleetFlag")?.value == nil)
        }
    }

    @Test("watch on PostgreSQL prints an app's write, one JSON object per line")
    func watchHearsAppWrites() async throws {
        let table = ToolPostgresServer.uniqueTable("watch")
        try await ToolPostgresServer.createTable(table)
        defer { Task { try? await ToolPostgresServer.dropTable(table) } }
        let watcher = try RunningSyncTool(["sync", "watch", "--postgres", "--table", table, "--json"], environment: ToolPostgresServer.toolEnvironment())
        #expect(await watcher.waitFor { _, stderr in stderr.contains("watching") || stderr.contains("appstatekit:") })
        let writer = try await SyncTool.run(["sync", "set", "App/watched", "42", "--postgres", "--table", table], environment: ToolPostgresServer.toolEnvironment())
        #expect(writer.status == 0, "\(writer.stderr)")
        #expect(await watcher.waitFor(within: .seconds(60)) { stdout, _ in stdout.contains("App/watched") })
        let result = await watcher.stop()
        let line = try #require(result.stdout.split(separator: "\n").compactMap(syncJSONObject).first, "\(result.stderr)")
        #expect(line["key"] as? String == "App/watched")
        #expect((line["value"] as? NSNumber)?.intValue == 42)
        #expect((line["version"] as? NSNumber)?.int64Value == 1)
    }

    @Test("doctor flags a role without UPDATE with the exact GRANT, passes the app role, and finds PgBouncer's transaction mode")
    func doctorFindsMissingUpdate() async throws {
        let table = ToolPostgresServer.uniqueTable("doctor")
        let role = "tool_doctor_\(UInt32.random(in: 0...UInt32.max))"
        try await ToolPostgresServer.createTable(table)
        try await ToolPostgresServer.run("CREATE ROLE \(role) LOGIN", as: ToolPostgresServer.superuser)
        try await ToolPostgresServer.run("GRANT SELECT, INSERT, DELETE ON TABLE \"\(table)\" TO \(role)", as: ToolPostgresServer.owner)
        defer {
            Task {
                try? await ToolPostgresServer.dropTable(table)
                try? await ToolPostgresServer.run("DROP ROLE IF EXISTS \(role)", as: ToolPostgresServer.superuser)
            }
        }
        // The findings themselves.
        let limited = try DoctorPostgresOptions.parse(["--postgres", "--table", table, "--user", role])
        let findings = await postgresFindings(limited)
        let privileges = try #require(findings.first { $0.title.hasPrefix("Privileges on") }, "\(findings)")
        #expect(privileges.severity == .problem)
        #expect(privileges.detail.contains("lacks UPDATE"))
        #expect(privileges.remedy == "as the table's owner: GRANT UPDATE ON TABLE \"\(table)\" TO \"\(role)\";")
        #expect(findings.first { $0.title.hasPrefix("TLS") }?.severity == .ok)
        #expect(findings.first { $0.title.hasPrefix("Notifications") }?.severity == .ok)

        // The built binary: exit status 2, the GRANT printed. With --postgres and no local store
        // named, only the database is checked (no finding about the tool's own default folders).
        let doctor = try await SyncTool.run(["doctor", "--postgres", "--table", table, "--user", role], environment: ToolPostgresServer.toolEnvironment(user: role))
        #expect(doctor.status == 2, "\(doctor.stdout)\(doctor.stderr)")
        #expect((doctor.stdout + doctor.stderr).contains("GRANT UPDATE ON TABLE"))
        #expect(!(doctor.stdout + doctor.stderr).contains("Key-value store"), "\(doctor.stdout)\(doctor.stderr)")
        // Naming a store adds the local checks.
        let store = try SyncTool.temporaryFolder() + "/defaults.json"
        let both = try await SyncTool.run(["doctor", "--store", store, "--postgres", "--table", table, "--user", role], environment: ToolPostgresServer.toolEnvironment(user: role))
        #expect(both.status == 2, "\(both.stdout)\(both.stderr)")
        #expect((both.stdout + both.stderr).contains("Key-value store"), "\(both.stdout)\(both.stderr)")

        // The app role has every privilege; through PgBouncer in transaction mode LISTEN fails.
        let app = try await syncFindings(["--postgres", "--table", table, "--user", ToolPostgresServer.appUser ?? ""], password: ToolPostgresServer.appPassword)
        #expect(app.first { $0.title.hasPrefix("Privileges on") }?.severity == .ok, "\(app)")
        if let bouncer = ToolPostgresServer.bouncerPort {
            let pooled = try await syncFindings(
                ["--postgres", "--table", table, "--user", ToolPostgresServer.appUser ?? "", "--port", String(bouncer)], password: ToolPostgresServer.appPassword
            )
            #expect(pooled.first { $0.title.hasPrefix("Notifications") }?.severity == .problem, "\(pooled)")
            let polling = try await syncFindings(
                ["--postgres", "--no-listen", "--table", table, "--user", ToolPostgresServer.appUser ?? "", "--port", String(bouncer)], password: ToolPostgresServer.appPassword
            )
            #expect(polling.first { $0.title.hasPrefix("Notifications") }?.severity == .ok, "\(polling)")
        }
        // A table that doesn't exist: the DDL to create it.
        let missing = try await syncFindings(["--postgres", "--table", table + "_none", "--user", role], password: nil)
        #expect(missing.first { $0.title.hasPrefix("Table") }?.remedy.contains("CREATE TABLE IF NOT EXISTS \"\(table)_none\"") == true, "\(missing)")
    }

    /// The doctor's PostgreSQL findings for `arguments`, with `password` as the variable.
    private func syncFindings(_ arguments: [String], password: String?) async throws -> [DoctorFinding] {
        var environment = ProcessInfo.processInfo.environment
        environment["APPSTATEKIT_POSTGRES_PASSWORD"] = password
        return await DoctorPostgres.databaseFindings(try DoctorPostgresOptions.parse(arguments), environment: environment)
    }
}

/// Settings the tool checks before connecting; no server needed.
@Suite("appstatekit: PostgreSQL settings", .isolatedApplication)
struct PostgresSettingsTests {
    @Test("TLS is required except to loopback or a Unix socket, and disable is refused for another machine")
    func tlsModes() throws {
        #expect(try PostgresTLSMode(host: "127.0.0.1", setting: nil, certificate: nil) == .disabled)
        #expect(try PostgresTLSMode(host: "/run/postgresql", setting: nil, certificate: nil) == .disabled)
        #expect(try PostgresTLSMode(host: "localhost", setting: "require", certificate: nil) == .required(trusting: nil))
        #expect(try PostgresTLSMode(host: "db.internal", setting: nil, certificate: "/etc/ca.pem") == .required(trusting: "/etc/ca.pem"))
        #expect(try PostgresTLSMode(host: "127.0.0.1.evil.example", setting: nil, certificate: nil) == .required(trusting: nil))
        #expect(throws: SyncToolError.self) { try PostgresTLSMode(host: "db.internal", setting: "disable", certificate: nil) }
        #expect(throws: SyncToolError.self) { try PostgresTLSMode(host: "db.internal", setting: "off", certificate: nil) }
    }

    @Test("a table, schema or namespace the store would refuse is refused before connecting, with exit 1")
    func namesAreChecked() async throws {
        let badTable = try await SyncTool.run(["sync", "list", "--postgres", "--host", "127.0.0.1", "--user", "x", "--table", "x\"; DROP TABLE y; --"])
        #expect(badTable.status == 1)
        #expect(badTable.stderr.contains("--table"))
        let badNamespace = try await SyncTool.run(["sync", "list", "--postgres", "--host", "127.0.0.1", "--user", "x", "--namespace", "a b"])
        #expect(badNamespace.status == 1)
        #expect(badNamespace.stderr.contains("--namespace"))
        let noHost = try await SyncTool.run(["sync", "list", "--postgres"], environment: ["APPSTATEKIT_POSTGRES_HOST": nil])
        #expect(noHost.status == 1)
        #expect(noHost.stderr.contains("APPSTATEKIT_POSTGRES_HOST"))
    }

    @Test("the last-known-good file: missing is a warning, group-readable a problem, 600 and fresh ok")
    func lastKnownGood() throws {
        let folder = try SyncTool.temporaryFolder()
        let path = folder + "/flags-last-known-good.json"
        #expect(DoctorPostgres.lastKnownGoodFinding(path: path, now: Date()).severity == .warning)
        _ = FileManager.default.createFile(atPath: path, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o644])
        let open = DoctorPostgres.lastKnownGoodFinding(path: path, now: Date())
        #expect(open.severity == .problem)
        #expect(open.remedy == "chmod 600 \(path)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(DoctorPostgres.lastKnownGoodFinding(path: path, now: Date()).severity == .ok)
        #expect(DoctorPostgres.lastKnownGoodFinding(path: path, now: Date().addingTimeInterval(30 * 86400)).severity == .warning)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: path)
        #expect(DoctorPostgres.lastKnownGoodFinding(path: folder + "/link", now: Date()).severity == .problem)
    }
}
