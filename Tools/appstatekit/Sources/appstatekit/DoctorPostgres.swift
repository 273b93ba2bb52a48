import AppStateKit
import AppStateKitPostgres
import ArgumentParser
import Foundation
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// The options `doctor` takes for its PostgreSQL checks.
struct DoctorPostgresOptions: ParsableArguments {
    @Flag(help: "Check the PostgreSQL SyncState table: the role's privileges, TLS, a pooler in transaction mode.")
    var postgres = false

    @Flag(help: "The app's store polls (listensForNotifications = false), so a transaction pooler is fine.")
    var noListen = false

    @Option(help: ArgumentHelp("The store's lastKnownGoodFile: checks its presence, age and mode.", valueName: "path"))
    var lastKnownGood: String?

    @OptionGroup(title: "PostgreSQL (with --postgres)")
    var connection: PostgresConnectionOptions
}

/// The PostgreSQL findings for `appstatekit doctor`: the connection and its TLS, the table and
/// the role's privileges on it (with the exact `GRANT`s or DDL missing), whether notifications
/// reach the connection (a pooler in transaction mode drops them), and the last-known-good file.
func postgresFindings(_ options: DoctorPostgresOptions) async -> [DoctorFinding] {
    var findings: [DoctorFinding] = []
    if options.postgres {
        findings += await DoctorPostgres.databaseFindings(options)
    }
    if let path = options.lastKnownGood {
        findings.append(DoctorPostgres.lastKnownGoodFinding(path: path, now: Date()))
    }
    return findings
}

enum DoctorPostgres {
    /// postgres-nio's logger for the doctor's queries (nothing is logged below debug).
    static let doctorLogger = Logger(label: "appstatekit.doctor")
    /// How long a notification may take before the connection is taken to drop them.
    static let notificationWait: Duration = .seconds(3)
    /// A last-known-good file older than this is reported: the store rewrites it after changes
    /// and snapshots, so a much older one means the store hasn't reached the database.
    static let staleAge: TimeInterval = 7 * 24 * 3600

    static func databaseFindings(_ options: DoctorPostgresOptions, environment: [String: String] = ProcessInfo.processInfo.environment) async -> [DoctorFinding] {
        let endpoint: PostgresEndpoint
        let configuration: PostgresSyncStore.Configuration
        let clientConfiguration: PostgresClient.Configuration
        do {
            endpoint = try options.connection.endpoint(environment: environment)
            configuration = try options.connection.storeConfiguration()
            clientConfiguration = try endpoint.clientConfiguration(applicationName: "appstatekit-doctor")
        } catch {
            return [DoctorFinding(severity: .problem, title: "PostgreSQL settings", detail: "\(error)", remedy: "pass --host/--port/--user/--database or set APPSTATEKIT_POSTGRES_HOST/PORT/USER/DATABASE")]
        }
        let client = PostgresClient(configuration: clientConfiguration)
        let table = options.connection.qualifiedTable
        let listens = !options.noListen
        let limit = options.connection.timeout * 3
        return await withTaskGroup(of: [DoctorFinding]?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            group.addTask {
                do {
                    return try await OperationLimit.run(seconds: limit) {
                        try await PostgresProbe.check(endpoint, timeout: limit / 3)
                        return try await checks(client: client, endpoint: endpoint, configuration: configuration, table: table, listens: listens)
                    }
                } catch {
                    return [DoctorFinding(
                        severity: .problem, title: "PostgreSQL at \(endpoint.description)",
                        detail: "can't connect or query: \(PostgresProbe.reason(error))",
                        remedy: "check the host, port, role and password (APPSTATEKIT_POSTGRES_PASSWORD or the appstatekitPostgresPassword secret), and that the server accepts this role from this machine"
                    )]
                }
            }
            var result: [DoctorFinding] = []
            for await findings in group {
                if let findings {
                    result = findings
                    group.cancelAll()
                }
            }
            return result
        }
    }

    private static func checks(
        client: PostgresClient, endpoint: PostgresEndpoint, configuration: PostgresSyncStore.Configuration, table: String, listens: Bool
    ) async throws -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let facts = try await client.withConnection { connection in
            try await ServerFacts.read(on: connection, configuration: configuration)
        }
        findings.append(tlsFinding(endpoint: endpoint, serverSaysSSL: facts.ssl))
        findings += privilegeFindings(facts, configuration: configuration, table: table)
        findings.append(try await notificationFinding(client: client, endpoint: endpoint, listens: listens))
        return findings
    }

    // MARK: TLS

    static func tlsFinding(endpoint: PostgresEndpoint, serverSaysSSL: Bool?) -> DoctorFinding {
        let title = "TLS to PostgreSQL at \(endpoint.description)"
        if serverSaysSSL == true || endpoint.usesTLS {
            return DoctorFinding(severity: .ok, title: title, detail: "the connection is encrypted and the server's certificate verified")
        }
        if PostgresEndpoint.isLocal(endpoint.host) {
            return DoctorFinding(severity: .ok, title: title, detail: "no TLS: the server is on this machine (\(endpoint.host.hasPrefix("/") ? "a Unix socket" : "loopback")), nothing crosses a network")
        }
        return DoctorFinding(
            severity: .problem, title: title, detail: "the connection to \(endpoint.host), another machine, is not encrypted: the password and every value cross the network in clear text",
            remedy: "require TLS (unset APPSTATEKIT_POSTGRES_TLS, or set it to require; APPSTATEKIT_POSTGRES_TLS_CA names the CA file) and enable ssl on the server"
        )
    }

    // MARK: Privileges

    /// What the server says about the role and the table.
    struct ServerFacts {
        var role: String
        var ssl: Bool?
        var schemaUsage: Bool?
        var tableExists: Bool
        var privileges: [String: Bool]

        static let needed = ["SELECT", "INSERT", "UPDATE", "DELETE"]

        static func read(on connection: PostgresConnection, configuration: PostgresSyncStore.Configuration) async throws -> ServerFacts {
            var role = ""
            var ssl: Bool?
            for try await (name, encrypted) in try await connection.query(
                "SELECT current_user::text, (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid())", logger: DoctorPostgres.doctorLogger
            ).decode((String, Bool?).self) {
                role = name
                ssl = encrypted
            }
            var schemaUsage: Bool?
            let schema = configuration.schema
            if let schema {
                for try await (usage) in try await connection.query(
                    "SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = \(schema)) THEN has_schema_privilege(\(schema), 'USAGE') END", logger: DoctorPostgres.doctorLogger
                ).decode(Bool?.self) {
                    schemaUsage = usage
                }
            }
            // Found through the catalogs, which need no privilege on the schema.
            var oid: Int64?
            let tableName = configuration.table
            let lookup: PostgresQuery
            if let schema {
                lookup = "SELECT c.oid::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = \(schema) AND c.relname = \(tableName) AND c.relkind IN ('r', 'p')"
            } else {
                lookup = "SELECT c.oid::bigint FROM pg_class c WHERE c.relname = \(tableName) AND c.relkind IN ('r', 'p') AND pg_table_is_visible(c.oid)"
            }
            for try await found in try await connection.query(lookup, logger: DoctorPostgres.doctorLogger).decode(Int64.self) {
                oid = found
            }
            var privileges: [String: Bool] = [:]
            if let oid {
                for try await (select, insert, update, delete) in try await connection.query(
                    "SELECT has_table_privilege(\(oid)::oid, 'SELECT'), has_table_privilege(\(oid)::oid, 'INSERT'), has_table_privilege(\(oid)::oid, 'UPDATE'), has_table_privilege(\(oid)::oid, 'DELETE')",
                    logger: DoctorPostgres.doctorLogger
                ).decode((Bool, Bool, Bool, Bool).self) {
                    privileges = ["SELECT": select, "INSERT": insert, "UPDATE": update, "DELETE": delete]
                }
            }
            return ServerFacts(role: role, ssl: ssl, schemaUsage: schemaUsage, tableExists: oid != nil, privileges: privileges)
        }
    }

    static func privilegeFindings(_ facts: ServerFacts, configuration: PostgresSyncStore.Configuration, table: String) -> [DoctorFinding] {
        let quotedRole = "\"" + facts.role.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        var findings: [DoctorFinding] = []
        if let schema = configuration.schema {
            switch facts.schemaUsage {
            case nil:
                findings.append(DoctorFinding(
                    severity: .problem, title: "Schema \"\(schema)\"", detail: "the schema does not exist",
                    remedy: "as the migration role: CREATE SCHEMA \"\(schema)\"; \(oneLine(PostgresSyncStore.migrationSQL(configuration: configuration))) \(oneLine(PostgresSyncStore.grantSQL(configuration: configuration, role: facts.role)))"
                ))
                return findings
            case false?:
                findings.append(DoctorFinding(
                    severity: .problem, title: "Schema \"\(schema)\"", detail: "role \(quotedRole) has no USAGE on the schema, so it can't reach the table",
                    remedy: "as the schema's owner: GRANT USAGE ON SCHEMA \"\(schema)\" TO \(quotedRole);"
                ))
            case true?:
                findings.append(DoctorFinding(severity: .ok, title: "Schema \"\(schema)\"", detail: "role \(quotedRole) has USAGE"))
            }
        }
        guard facts.tableExists else {
            findings.append(DoctorFinding(
                severity: .problem, title: "Table \(table)", detail: "no such table\(configuration.schema == nil ? " on role \(quotedRole)'s search_path" : ""); the app's store (createsTable = false) can't start",
                remedy: "as the migration role: \(oneLine(PostgresSyncStore.migrationSQL(configuration: configuration))) \(oneLine(PostgresSyncStore.grantSQL(configuration: configuration, role: facts.role)))"
            ))
            return findings
        }
        let missing = ServerFacts.needed.filter { facts.privileges[$0] != true }
        if missing.isEmpty {
            findings.append(DoctorFinding(severity: .ok, title: "Privileges on \(table)", detail: "role \(quotedRole) has SELECT, INSERT, UPDATE and DELETE, all the store needs"))
        } else {
            findings.append(DoctorFinding(
                severity: .problem, title: "Privileges on \(table)",
                detail: "role \(quotedRole) lacks \(missing.joined(separator: ", ")) on the table; the store needs SELECT, INSERT, UPDATE and DELETE (\(missing.contains("UPDATE") ? "without UPDATE every write of an existing key fails" : "its operations fail"))",
                remedy: "as the table's owner: GRANT \(missing.joined(separator: ", ")) ON TABLE \(table) TO \(quotedRole);"
            ))
        }
        return findings
    }

    /// `sql` on one line (doctor prints each remedy as one line), spaces collapsed.
    static func oneLine(_ sql: String) -> String {
        sql.split(whereSeparator: { $0 == "\n" || $0 == " " }).joined(separator: " ").replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
    }

    // MARK: Notifications (a pooler in transaction mode)

    /// Whether a notification sent from a second connection reaches a connection that
    /// `LISTEN`s: through PgBouncer in transaction mode the `LISTEN` lands on a server
    /// connection that goes back to the pool, and the notification never arrives.
    static func notificationFinding(client: PostgresClient, endpoint: PostgresEndpoint, listens: Bool) async throws -> DoctorFinding {
        let channel = "appstatekit_doctor_\(UInt32.random(in: 0...UInt32.max))"
        let title = "Notifications through \(endpoint.description)"
        let arrived: Bool = try await client.withConnection { listener in
            try await listener.listen(on: channel) { notifications in
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        for try await _ in notifications { return true }
                        return false
                    }
                    group.addTask {
                        _ = try await client.withConnection { sender in
                            try await sender.query("SELECT pg_notify(\(channel), 'probe')::text", logger: DoctorPostgres.doctorLogger)
                        }
                        try await Task.sleep(for: notificationWait)
                        return false
                    }
                    let first = try await group.next() ?? false
                    group.cancelAll()
                    return first
                }
            }
        }
        if arrived {
            return DoctorFinding(severity: .ok, title: title, detail: "a notification from a second connection arrived: LISTEN works, instances hear each other's changes in milliseconds")
        }
        if listens {
            return DoctorFinding(
                severity: .problem, title: title,
                detail: "a notification from a second connection did not arrive within \(notificationWait): the connection goes through a pooler in transaction mode (PgBouncer pool_mode = transaction), where LISTEN does not work, so instances would hear of changes only at reconciliation",
                remedy: "connect the store straight to PostgreSQL (or through a session-mode pool), or set listensForNotifications = false in PostgresSyncStore.Configuration (then pass --no-listen to doctor)"
            )
        }
        return DoctorFinding(
            severity: .ok, title: title,
            detail: "LISTEN does not work through this connection (a pooler in transaction mode); the app polls (--no-listen), so changes arrive at each reconciliation"
        )
    }

    // MARK: Last-known-good file

    static func lastKnownGoodFinding(path: String, now: Date) -> DoctorFinding {
        let title = "Last-known-good file \(path)"
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let why = errno == ENOENT ? "it does not exist" : "it can't be examined: \(String(cString: strerror(errno)))"
            return DoctorFinding(
                severity: .warning, title: title, detail: "\(why); until the store writes it (after its first snapshot), a boot while PostgreSQL is down serves initial values",
                remedy: "start the app once with the database up, and check that the service's user can write \((path as NSString).deletingLastPathComponent)"
            )
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            return DoctorFinding(severity: .problem, title: title, detail: "it is a symbolic link; the store refuses it", remedy: "remove it: the next snapshot writes a regular file")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return DoctorFinding(severity: .problem, title: title, detail: "it is not a regular file; the store refuses it", remedy: "remove it: the next snapshot writes a regular file")
        }
        let mode = String(info.st_mode & 0o777, radix: 8)
        if info.st_mode & 0o077 != 0 {
            return DoctorFinding(
                severity: .problem, title: title, detail: "its mode is \(mode): other users can read or change the values it holds, and the store refuses to serve it",
                remedy: "chmod 600 \(path)"
            )
        }
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
        let age = now.timeIntervalSince(modified)
        let ageText = age < 3600 ? "\(Int(age / 60)) minutes" : age < 172_800 ? "\(Int(age / 3600)) hours" : "\(Int(age / 86400)) days"
        let owner = "owned by user id \(info.st_uid), mode \(mode), \(info.st_size) bytes, written \(ageText) ago"
        if age > staleAge {
            return DoctorFinding(
                severity: .warning, title: title, detail: "\(owner): older than \(Int(staleAge / 86400)) days, so an outage at boot would serve old values",
                remedy: "check that the app's store reaches PostgreSQL (its status) and can write the file"
            )
        }
        return DoctorFinding(severity: .ok, title: title, detail: owner + " (the store serves it only when the file's owner is its own user)")
    }
}

/// Runs `body`, giving up after `seconds` with an error.
enum OperationLimit {
    struct TimedOut: Error, CustomStringConvertible {
        let seconds: Int
        var description: String { "no answer within \(seconds) seconds" }
    }

    static func run<Result: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else { throw TimedOut(seconds: seconds) }
            return result
        }
    }
}
