import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// Issue 46 item 5 (local checks): `appstatekit doctor`.
@Suite("appstatekit doctor", .isolatedApplication)
struct DoctorToolTests {
    /// An app "shop" with a key-value store and a secret, as the library leaves them.
    private func deployment() throws -> Sandbox {
        let sandbox = try Sandbox()
        let store = FileKeyValueStore(path: sandbox.path("config/shop/defaults.json"))
        try store.writeObject(true, forKey: "App/ready")
        try Keychain(sources: [.fileStore(directory: sandbox.path("config/shop/secrets"))]).write("x", forKey: "token")
        return sandbox
    }

    @Test("a deployment as the library makes it has no problem: exit 0")
    func clean() throws {
        let sandbox = try deployment()
        let result = try sandbox.run(["doctor", "--storage-name", "shop", "--json"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(try result.json()["problems"] as? Int == 0)
    }

    @Test("a world-readable secret store (0755 directory, 0644 file) is a problem: exit 2, naming the path and what to do", arguments: [
        (0o755, 0o600), (0o700, 0o644),
    ] as [(Int, Int)])
    func worldReadableSecrets(directoryMode: Int, fileMode: Int) throws {
        let sandbox = try deployment()
        let directory = sandbox.path("config/shop/secrets")
        chmod(directory + "/token", mode_t(fileMode))
        chmod(directory, mode_t(directoryMode))
        let result = try sandbox.run(["doctor", "--storage-name", "shop", "--json"])
        #expect(result.status == 2)
        let findings = try #require(try result.json()["findings"] as? [[String: Any]])
        let problems = findings.filter { $0["severity"] as? String == "problem" }
        #expect(problems.count == 1)
        #expect((problems.first?["title"] as? String)?.contains(directory) == true)
        #expect((problems.first?["remedy"] as? String)?.contains("chmod") == true)
        let table = try sandbox.run(["doctor", "--storage-name", "shop"])
        #expect(table.status == 2 && table.stdout.contains("[problem]"))
    }

    @Test("a world-writable storage directory is a problem; a world-readable one a warning (exit 0)")
    func storageDirectory() throws {
        let sandbox = try deployment()
        let directory = sandbox.path("config/shop")
        chmod(directory, 0o755)
        let readable = try sandbox.run(["doctor", "--storage-name", "shop", "--json"])
        #expect(readable.status == 0)
        #expect(try readable.json()["warnings"] as? Int == 1)
        chmod(directory, 0o777)
        let writable = try sandbox.run(["doctor", "--storage-name", "shop"])
        #expect(writable.status == 2)
        #expect(writable.stdout.contains(directory) && writable.stdout.contains("chmod 700"))
    }
}
