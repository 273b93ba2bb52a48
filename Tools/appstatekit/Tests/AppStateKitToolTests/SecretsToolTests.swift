import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// Issue 46 items 4, 6: `appstatekit secrets`; values never printed, never arguments.
@Suite("appstatekit secrets", .isolatedApplication)
struct SecretsToolTests {
    static let value = "s3cr3t-VALUE-never-printed"

    @Test("set reads standard input into a 0600 file of the app's store; list names each key's source and no value; delete removes it")
    func setListDelete() throws {
        let sandbox = try Sandbox()
        let mount = sandbox.path("mount")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        try "mounted-\(Self.value)\n".write(toFile: mount + "/apiToken", atomically: true, encoding: .utf8)
        let common = ["--storage-name", "billing", "--mount", mount]

        let set = try sandbox.run(["secrets", "set", "dbPassword"] + common, stdin: Data((Self.value + "\n").utf8))
        #expect(set.status == 0, "\(set.stderr)")
        let file = sandbox.path("config/billing/secrets/dbPassword")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == Self.value + "\n")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0)
        // The app's keychain over the same store reads what the tool wrote.
        let appKeychain = Keychain(sources: [.fileStore(directory: sandbox.path("config/billing/secrets"))])
        #expect(try appKeychain.read("dbPassword") == Self.value)

        let list = try sandbox.run(["secrets", "list", "envToken", "--json"] + common, environment: ["ENV_TOKEN": Self.value])
        #expect(list.status == 0, "\(list.stderr)")
        let entries = try #require(try list.json()["secrets"] as? [[String: Any]])
        let sources = Dictionary(uniqueKeysWithValues: entries.compactMap { entry in (entry["key"] as? String).map { ($0, entry["source"] as? String ?? "") } })
        #expect(sources == ["apiToken": "mount", "dbPassword": "store", "envToken": "environment"])
        let table = try sandbox.run(["secrets", "list", "envToken"] + common, environment: ["ENV_TOKEN": Self.value])
        for output in [set, list, table] {
            #expect(!output.stdout.contains(Self.value) && !output.stderr.contains(Self.value), "a value was printed")
        }
        #expect(table.stdout.contains("ENV_TOKEN"))

        #expect(try sandbox.run(["secrets", "delete", "dbPassword"] + common).status == 0)
        #expect(!FileManager.default.fileExists(atPath: file))
        let readOnly = try sandbox.run(["secrets", "delete", "apiToken"] + common)
        #expect(readOnly.status == 1)
        #expect(readOnly.stderr.contains("apiToken") && !readOnly.stderr.contains(Self.value))
    }

    @Test("a value is never taken as an argument; empty input is refused")
    func noArgumentValue() throws {
        let sandbox = try Sandbox()
        let argument = try sandbox.run(["secrets", "set", "dbPassword", Self.value, "--storage-name", "billing"])
        #expect(argument.status == 64)
        #expect(!argument.stderr.contains(Self.value) && !argument.stdout.contains(Self.value), "the mistaken argument is not echoed")
        #expect(argument.stderr.contains("standard input"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("config/billing/secrets/dbPassword")))
        #expect(try sandbox.run(["secrets", "set", "dbPassword", "--storage-name", "billing"], stdin: Data()).status == 1)
    }
}
