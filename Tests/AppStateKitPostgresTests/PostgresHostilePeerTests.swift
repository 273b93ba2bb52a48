#if PostgreSQL
import AppStateKit
import AppStateKitTesting
@testable import AppStateKitPostgres
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// The largest value noted.
final class Maximum: Sendable {
    private let maximum: Mutex<Int>

    init(_ initial: Int) { maximum = Mutex(initial) }

    func note(_ value: Int) { maximum.withLock { $0 = max($0, value) } }
    var value: Int { maximum.withLock { $0 } }
}

/// Issue 41's triggers, sent against the real server while instances run: by a role with no
/// grant at all (PostgreSQL checks no privilege on `NOTIFY`) and by a role with the app's grants
/// (rows it may write). Each test checks that no instance stops, the other keys keep their
/// values and keep propagating, writes keep succeeding, and the damage is reported once.
/// CI runs this suite in its own step (.ci/steps/51-postgres-hostile.sh).
extension PostgresServerTests {
@Suite(.isolatedApplication)
struct PostgresHostilePeerTests {
    /// A login role with no grant on anything: what any account on the database server has.
    static let stranger = "appstatekit_stranger"

    static var strangerConfiguration: PostgresClient.Configuration {
        var configuration = PostgresTestServer.adminConfiguration
        configuration.username = stranger
        configuration.options.additionalStartupParameters = [("application_name", "AppStateKitPostgresTests-stranger")]
        return configuration
    }

    /// Creates the stranger role once (as the superuser; trust authentication on loopback).
    static func ensureStranger() async throws {
        try await PostgresTestServer.withClient(PostgresTestServer.adminConfiguration) { client in
            try await client.query("""
                DO $$ BEGIN CREATE ROLE appstatekit_stranger LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$
                """)
        }
    }

    /// Sends `payloads` on `channel` as the stranger, one transaction.
    static func notifyAsStranger(_ channel: String, _ payloads: [String]) async throws {
        try await ensureStranger()
        try await PostgresTestServer.withClient(strangerConfiguration) { client in
            for payload in payloads {
                try await client.query("SELECT pg_notify(\(channel), \(payload))")
            }
        }
    }

    /// Collects AppStateKit's error reports for the running test's application.
    static func collectErrors() -> LockedLines {
        let lines = LockedLines()
        Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { lines.append($0) }))
        return lines
    }

    /// Runs `body` with two instances (stores A and B on the same table), both listening.
    static func withTwoInstances(
        _ purpose: String,
        reconcileInterval: Duration = .seconds(30),
        configure: @escaping @Sendable (inout PostgresSyncStore.Configuration) -> Void = { _ in },
        _ body: @Sendable (PostgresSyncStore, PostgresSyncStore, PostgresClient) async throws -> Void
    ) async throws {
        let table = PostgresTestServer.uniqueTable(purpose)
        try await PostgresTestServer.withStore(table: table, configure: { configuration in
            configuration.reconcileInterval = reconcileInterval
            configure(&configuration)
        }) { first, client in
            var configuration = PostgresTestServer.storeConfiguration(table: table)
            configuration.reconcileInterval = reconcileInterval
            let second = PostgresSyncStore(client: client, configuration: configuration)
            let run = Task { try await second.run() }
            defer { run.cancel() }
            try await second.waitUntilReady(timeout: .seconds(30))
            try await body(first, second, client)
            run.cancel()
            _ = await run.result
        }
    }

    /// Writes `value` to `key` through `writer` and waits until `reader` has it.
    static func expectPropagation(_ key: String, _ value: String, from writer: PostgresSyncStore, to reader: PostgresSyncStore) async throws {
        _ = try await writer.write(.json(value), forKey: key)
        try await PostgresTestServer.eventually(timeout: .seconds(40), "\(key) = \(value) to reach the other instance") {
            PostgresTestServer.text(try reader.cachedRecord(forKey: key)) == value
        }
    }

    static func isConnected(_ store: PostgresSyncStore) -> Bool {
        if case .live = store.currentStatus { return true }
        return false
    }

    @Test("a NOTIFY with stamp Int64.min, and other garbage, from a role with no grant stops no listener")
    func hostileNotificationsStopNoInstance() async throws {
        try await Self.withTwoInstances("notify_crash") { first, second, _ in
            let errors = Self.collectErrors()
            try await Self.expectPropagation("kept", "1", from: first, to: second)
            try await Self.notifyAsStranger(first.channel, [
                // Reported first (the burst's one report): escaped and cut.
                "garbage\n\u{1b}[2J " + String(repeating: "y", count: 400),
                "1 -9223372036854775808 x",
                "9223372036854775807 9223372036854775807 kept",
                "1 \(SyncInputBounds.nowMicroseconds()) \("x\n\u{1b}[2J" + String(repeating: "y", count: 200))",
                "not a notification at all",
                "",
            ])
            // Both keep working: the next real change arrives, writes succeed, the value stays.
            try await Self.expectPropagation("after", "2", from: first, to: second)
            try await Self.expectPropagation("after", "3", from: second, to: first)
            #expect(PostgresTestServer.text(try second.cachedRecord(forKey: "kept")) == "1")
            #expect(Self.isConnected(first) && Self.isConnected(second))
            // One report per instance for the burst (rate-limited), escaped and cut.
            let reports = errors.all.filter { $0.contains("malformed notification") }
            #expect(reports.count == 2, "reports: \(reports)")
            #expect(reports.allSatisfy { !$0.contains("\n") && !$0.contains("\u{1b}") && $0.contains(#"garbage\n\u{1b}[2J"#) && $0.utf8.count < 600 })
        }
    }

    @Test("a row with updated_at = 'infinity' or NULL is left out and reported once; every other key and write keeps working; a write repairs it")
    func infiniteTimeRowIsThatRowsProblem() async throws {
        try await Self.withTwoInstances("infinity", reconcileInterval: .seconds(1)) { first, second, client in
            let errors = Self.collectErrors()
            try await Self.expectPropagation("bad", "1", from: first, to: second)
            try await Self.expectPropagation("good", "1", from: first, to: second)
            // A peer with the app's grants writes the row no instance could read on main.
            try await client.query("UPDATE \(unescaped: first.table) SET updated_at = 'infinity' WHERE key = 'bad'")
            for _ in 0..<3 {
                let snapshot = try await first.snapshot()
                #expect(snapshot.map(\.key) == ["good"])
            }
            // Reconciliations keep running (interval 1 s) and the instances stay connected.
            try await Task.sleep(for: .seconds(2.5))
            #expect(Self.isConnected(first) && Self.isConnected(second))
            // The cache keeps what it knew of the damaged key.
            #expect(PostgresTestServer.text(try second.cachedRecord(forKey: "bad")) == "1")
            try await Self.expectPropagation("good", "2", from: second, to: first)
            let reports = errors.all.filter { $0.contains("\"bad\"") && $0.contains("updated_at is Infinity") }
            #expect(reports.count == 2, "one per instance: \(errors.all)")
            #expect(reports.allSatisfy { $0.contains("Any write of the key") })
            let read = await #expect(throws: SyncStoreError.self) { _ = try await first.fetchRecord(forKey: "bad") }
            #expect(read?.kind == .corruptRecord)
            // A write repairs the row, and every instance takes it.
            try await Self.expectPropagation("bad", "5", from: first, to: second)
            #expect(PostgresTestServer.text(try await second.fetchRecord(forKey: "bad")) == "5")
        }
    }

    @Test("a row at version Int64.max is left out and reported; write, compare-and-set and exclusive update repair it")
    func versionAtInt64MaxStaysWritable() async throws {
        try await Self.withTwoInstances("version_max") { first, second, client in
            let errors = Self.collectErrors()
            for key in ["w", "c", "x"] {
                try await Self.expectPropagation(key, "1", from: first, to: second)
            }
            try await client.query("UPDATE \(unescaped: first.table) SET version = 9223372036854775807")
            let snapshot = try await first.snapshot()
            #expect(snapshot.isEmpty)
            #expect(errors.all.filter { $0.contains("its version is 9223372036854775807") }.count == 3)
            // On main each of these failed with "bigint out of range".
            #expect(try await first.write(.json("2"), forKey: "w").version == 1)
            #expect(try await first.compareAndSet(.json("2"), forKey: "c", expectedVersion: 0) == .committed(SyncRecord(key: "c", value: .json("2"), version: 1)))
            #expect(try await first.updateExclusively(forKey: "x") { _ in .json("2") }.version == 1)
            for key in ["w", "c", "x"] {
                try await PostgresTestServer.eventually("\(key) to reach the other instance") {
                    PostgresTestServer.text(try second.cachedRecord(forKey: key)) == "2"
                }
            }
            #expect(try await first.snapshot().count == 3)
        }
    }

    @Test("a row over the size limit is measured in SQL, left out and reported, and never reaches the cache or the last-known-good copy")
    func oversizeRowIsNeverLoaded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lkg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("flags.lkg")
        try await Self.withTwoInstances("oversize", configure: { $0.lastKnownGoodFile = file }) { first, second, client in
            let errors = Self.collectErrors()
            _ = try await first.write(.json("1"), forKey: "small")
            let bytes = SyncLimits.maxValueBytes + 1024
            try await client.query("""
                INSERT INTO \(unescaped: first.table) (key, value, version) VALUES ('huge', to_json(repeat('x', \(unescaped: String(bytes)))), 1)
                """)
            let snapshot = try await first.snapshot()
            #expect(snapshot.map(\.key) == ["small"])
            #expect(try first.cachedRecord(forKey: "huge") == nil)
            _ = try await first.snapshot()
            #expect(errors.all.filter { $0.contains("\"huge\"") && $0.contains("it was not transferred") }.count == 1, "reported once: \(errors.all)")
            // The notification of another instance's write of a small key still arrives.
            try await Self.expectPropagation("small", "2", from: second, to: first)
            // The copy, saved after that change, holds the small key and not the huge one.
            try await PostgresTestServer.eventually("the copy to hold small = 2") {
                let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                return text.contains("\"small\"") && text.contains("\"2\"")
            }
            let copy = try Data(contentsOf: file)
            #expect(copy.count < 10_000)
            #expect(!String(decoding: copy, as: UTF8.self).contains("\"huge\""))
        }
    }

    /// The resident memory of this process, in KiB.
    static func residentKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test("a flood of 100,000 notifications from a role with no grant (in 100 transactions, as fast as the server takes them): memory bounded, reads and writes served, a real change still arrives", .timeLimit(.minutes(3)))
    func notificationFloodBlindsNoInstance() async throws {
        let reconcileInterval = Duration.seconds(1)
        try await Self.withTwoInstances("flood", reconcileInterval: reconcileInterval) { first, second, _ in
            _ = Self.collectErrors()
            try await Self.expectPropagation("real", "0", from: second, to: first)
            try await Self.ensureStranger()
            let channel = first.channel
            let before = Self.residentKiB()
            let peak = Maximum(before)
            let maxBuffered = Maximum(0)
            let flooding = Task {
                let started = ContinuousClock.now
                try await PostgresTestServer.withClient(Self.strangerConfiguration) { client in
                    // 100 transactions of 1,000: valid-looking notifications for random keys,
                    // out-of-range numbers and garbage; every payload distinct (PostgreSQL folds
                    // duplicates within a transaction).
                    for batch in 0..<100 {
                        try await client.query("""
                            SELECT pg_notify(\(channel), CASE i % 3
                                WHEN 0 THEN (1 + (random() * 1000)::int)::text || ' ' || (extract(epoch from now()) * 1000000)::bigint::text || ' flood.' || md5(random()::text)
                                WHEN 1 THEN '1 -9223372036854775808 ' || \(batch)::text || '.' || i::text
                                ELSE E'garbage\\n\\x1b[2J ' || md5(random()::text) || repeat('z', (random() * 300)::int)
                            END) FROM generate_series(1, 1000) AS i
                            """)
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                return ContinuousClock.now - started
            }
            let sampling = Task {
                while !Task.isCancelled {
                    let (resident, buffered) = (Self.residentKiB(), first.notificationBuffer.count)
                    peak.note(resident)
                    maxBuffered.note(buffered)
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            defer { sampling.cancel() }
            // Mid-flood: reads are served, writes succeed, and a real change arrives.
            try await Task.sleep(for: .seconds(4))
            #expect(PostgresTestServer.text(try first.cachedRecord(forKey: "real")) == "0")
            for round in 1...3 {
                _ = try await first.write(.json("\(round)"), forKey: "own")
            }
            let changed = ContinuousClock.now
            _ = try await second.write(.json("1"), forKey: "real")
            try await PostgresTestServer.eventually(timeout: .seconds(60), every: .milliseconds(5), "the real change to arrive during the flood") {
                PostgresTestServer.text(try first.cachedRecord(forKey: "real")) == "1"
            }
            let arrival = ContinuousClock.now - changed
            let floodDuration = try await flooding.value
            sampling.cancel()
            #expect(Self.isConnected(first) && Self.isConnected(second))
            #expect(maxBuffered.value <= first.notificationBuffer.capacity)
            #expect(first.notificationBuffer.malformedCount > 0)
            try await Self.expectPropagation("after", "1", from: second, to: first)
            let growth = peak.value - before
            print("notification flood: 100000 notifications in \(floodDuration); resident memory \(before) KiB before, peak \(peak.value) KiB (+\(growth) KiB, both instances and the flooding client in this process); at most \(maxBuffered.value) keys buffered (capacity \(first.notificationBuffer.capacity)); a real change arrived in \(arrival) (reconcile interval \(reconcileInterval))")
        }
    }

    @Test("the guide's row-level-security recipe: one app's role can neither read nor write another app's rows")
    func rowLevelSecurityRecipeSeparatesApps() async throws {
        let table = PostgresTestServer.uniqueTable("rls")
        let (roleA, roleB) = ("appstatekit_rls_a", "appstatekit_rls_b")
        let configuration = {
            var configuration = PostgresTestServer.storeConfiguration(table: table)
            configuration.createsTable = false
            return configuration
        }()
        try await PostgresTestServer.createTable(configuration)
        try await PostgresTestServer.withClient(PostgresTestServer.adminConfiguration) { admin in
            for role in [roleA, roleB] {
                try await admin.query(PostgresQuery(unsafeSQL: "DO $$ BEGIN CREATE ROLE \(role) LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$"))
            }
        }
        // The recipe, as the table's owner (Documentation/SyncState-PostgreSQL.md, "Two apps, one database").
        let recipe = [
            "ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY own_namespace ON \(table) USING (namespace = current_user) WITH CHECK (namespace = current_user)",
        ] + [roleA, roleB].flatMap { PostgresSyncStore.grantSQL(configuration: configuration, role: $0).split(separator: "\n").map(String.init) }
        for statement in recipe {
            try await PostgresTestServer.asOwner(statement)
        }
        func settings(_ role: String) -> PostgresClient.Configuration {
            var settings = PostgresTestServer.adminConfiguration
            settings.username = role
            return settings
        }
        let configurationA = {
            var configurationA = configuration
            configurationA.namespace = roleA
            return configurationA
        }()
        try await PostgresTestServer.withClient(settings(roleA)) { client in
            let store = PostgresSyncStore(client: client, configuration: configurationA)
            let run = Task { try await store.run() }
            defer { run.cancel() }
            try await store.waitUntilReady(timeout: .seconds(30))
            _ = try await store.write(.json("\"secret\""), forKey: "App/token")
            run.cancel()
            _ = await run.result
        }
        try await PostgresTestServer.withClient(settings(roleB)) { client in
            // B sees none of A's rows, whatever it asks for.
            let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM \(table)"))
            var visible: [Int64] = []
            for try await count in rows.decode(Int64.self) { visible.append(count) }
            #expect(visible == [0])
            // Its UPDATE and DELETE of A's rows touch nothing; its INSERT into A's namespace is refused.
            try await client.query(PostgresQuery(unsafeSQL: "UPDATE \(table) SET value = '1' WHERE namespace = '\(roleA)'"))
            try await client.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE namespace = '\(roleA)'"))
            await #expect(throws: (any Error).self) {
                try await client.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table) (namespace, key, value, version) VALUES ('\(roleA)', 'App/token', '1', 99)"))
            }
            // B's own store works in its own namespace.
            var configurationB = configuration
            configurationB.namespace = roleB
            let store = PostgresSyncStore(client: client, configuration: configurationB)
            let run = Task { try await store.run() }
            defer { run.cancel() }
            try await store.waitUntilReady(timeout: .seconds(30))
            #expect(try await store.write(.json("1"), forKey: "App/token").version == 1)
            #expect(try await store.snapshot().map(\.key) == ["App/token"])
            run.cancel()
            _ = await run.result
        }
        // A's row is intact.
        try await PostgresTestServer.withClient(PostgresTestServer.ownerConfiguration) { owner in
            let rows = try await owner.query(PostgresQuery(unsafeSQL: "SELECT value::text, version FROM \(table) WHERE namespace = '\(roleA)'"))
            var found: [String] = []
            for try await (value, version) in rows.decode((String, Int64).self) { found.append("\(value) v\(version)") }
            #expect(found == ["\"secret\" v1"])
        }
        try await PostgresTestServer.dropTable(configuration)
    }

    @Test("the last-known-good copy is saved before waitUntilReady returns, so a process that exits at once leaves one a later start serves")
    func lastKnownGoodSavedBeforeReady() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lkg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("flags.lkg")
        let table = PostgresTestServer.uniqueTable("lkg_ready")
        try await PostgresTestServer.withStore(table: table, dropTable: false) { store, _ in
            _ = try await store.write(.json("true"), forKey: "App/maintenance")
        }
        // The copy exists the moment waitUntilReady returns (on main it was saved later, in the
        // background, and a process exiting at once left none).
        try await PostgresTestServer.withStore(table: table, configure: { $0.lastKnownGoodFile = file }) { _, _ in
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
        let loaded = try LastKnownGoodFile(url: file).load(table: table, namespace: "")
        #expect(loaded?.records.map(\.key) == ["App/maintenance"])
        // A later start with PostgreSQL unreachable serves it.
        let client = PostgresClient(configuration: .init(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable))
        var configuration = PostgresTestServer.storeConfiguration(table: table, operationTimeout: .seconds(1))
        configuration.lastKnownGoodFile = file
        let offline = PostgresSyncStore(client: client, configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { try await offline.run() }
            defer { group.cancelAll() }
            try await offline.waitUntilReady(timeout: .seconds(30))
            #expect(PostgresTestServer.text(try offline.cachedRecord(forKey: "App/maintenance")) == "true")
        }
    }
}
}
#endif
