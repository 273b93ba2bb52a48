import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What another user could plant where a keychain looks: the tests run as root, so they plant
/// links and FIFOs only in directories they create, and make a file "foreign" by giving it to
/// another user id (root may).
private let plantedMaterial = "PRIVATE-KEY-MATERIAL"
/// A user id nobody here runs as.
private let otherUser: uid_t = 54_321

/// A directory for one test: `store` (mode 0700, for the writable store), `mount` (a read-only
/// source's directory) and `outside` (a file a link may point at).
private struct Planted {
    let directory = TemporaryDirectory()
    var store: String { directory.file("store") }
    var mount: String { directory.file("mount") }
    var outside: String { directory.file("outside-secret") }

    init() {
        try! FileManager.default.createDirectory(atPath: directory.file("store"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try! FileManager.default.createDirectory(atPath: directory.file("mount"), withIntermediateDirectories: false)
        try! Data(plantedMaterial.utf8).write(to: URL(fileURLWithPath: directory.file("outside-secret")))
        chmod(directory.file("outside-secret"), 0o600)
    }

    /// A keychain over the real file system: `mount` as the secrets directory, `store` writable.
    func keychain(sizeLimit: Int = Keychain.defaultSizeLimit) -> Keychain {
        Keychain(sources: [.secretsDirectory(mount), .fileStore(directory: store)], environment: [:], sizeLimit: sizeLimit)
    }

    /// Writes `text` to `path` with mode `mode`.
    func write(_ text: String, to path: String, mode: mode_t = 0o600) {
        try! Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
    }
}

/// Reads `key` from `keychain` on another thread; `nil` when it did not finish within the hang
/// guard (the thread is then abandoned, blocked).
private func readWithoutHanging(_ keychain: Keychain, _ key: String) -> Result<String?, SecureStateError>? {
    let outcome = Locked<Result<String?, SecureStateError>?>(nil)
    let finished = finishesOnAnotherThread(within: .seconds(30)) {
        do throws(SecureStateError) {
            let value = try keychain.read(key)
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
    }
    return finished ? outcome.withLock { $0 } : nil
}

@Suite("SecureState reads hostile files like OpenSSH reads keys: one open, checked by fstat, never a hang or a followed link", .isolatedApplication, .reportsAsDiagnostics)
struct SecureStateHostileFileTests {
    @Test("a FIFO named like a key in the store is an error naming the key, not a read that waits forever")
    func fifoInStore() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        #expect(mkfifo(planted.store + "/apiToken", 0o600) == 0)
        let keychain = planted.keychain()
        let outcome = readWithoutHanging(keychain, "apiToken")
        let result = try #require(outcome, "the read of a FIFO hung")
        guard case let .failure(error) = result else { Issue.record("read a FIFO: \(result)"); return }
        #expect(error.kind == .notRegularFile)
        #expect(error.description == """
            not a regular file for secret "apiToken" in the secret store file \(planted.store)/apiToken: \
            it is a FIFO (named pipe), not a regular file, so it is not read
            """)
    }

    @Test("a FIFO in a read-only secrets directory is refused too, without waiting")
    func fifoInMount() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        #expect(mkfifo(planted.mount + "/dbPassword", 0o644) == 0)
        let keychain = planted.keychain()
        let outcome = readWithoutHanging(keychain, "dbPassword")
        let result = try #require(outcome, "the read of a FIFO hung")
        guard case let .failure(error) = result else { Issue.record("read a FIFO: \(result)"); return }
        #expect(error.kind == .notRegularFile)
        #expect(error.key == "dbPassword")
        #expect(error.source == "the secret file \(planted.mount)/dbPassword")
    }

    @Test("a link planted in the store is refused, not followed; the target's bytes appear nowhere")
    func linkInStore() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        #expect(symlink(planted.outside, planted.store + "/sshKey") == 0)
        let keychain = planted.keychain()
        let error = #expect(throws: SecureStateError.self) { try keychain.read("sshKey") }
        #expect(error?.kind == .notRegularFile)
        #expect(error?.description.contains("secret \"sshKey\"") == true)
        #expect(error?.detail.contains("symbolic link") == true)
        #expect(error?.description.contains(plantedMaterial) == false)
        // The AppState-style read reports it and reads nothing.
        #expect(keychain.get("sshKey") == nil)
        // A write replaces the link itself; the target is untouched.
        try keychain.write("mine", forKey: "sshKey")
        #expect(try keychain.read("sshKey") == "mine")
        #expect(try String(contentsOfFile: planted.outside, encoding: .utf8) == plantedMaterial)
    }

    @Test("a read-only mount may use links, as Kubernetes secret volumes do")
    func linksInMountFollowed() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        let data = planted.mount + "/..2026_12_07_data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        planted.write("k8s-secret\n", to: data + "/dbPassword", mode: 0o644)
        #expect(symlink("..2026_12_07_data", planted.mount + "/..data") == 0)
        #expect(symlink("..data/dbPassword", planted.mount + "/dbPassword") == 0)
        #expect(try planted.keychain().read("dbPassword") == "k8s-secret")
    }

    @Test("a store directory other users can access is refused on reads, as on writes")
    func openDirectoryRefusedOnRead() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        planted.write("t0k3n\n", to: planted.store + "/apiToken")
        chmod(planted.store, 0o777)
        let keychain = planted.keychain()
        let error = #expect(throws: SecureStateError.self) { try keychain.read("apiToken") }
        #expect(error?.kind == .insecurePermissions)
        #expect(error?.source == "the secret store directory \(planted.store)")
        #expect(error?.detail == "mode 0777 lets other users access it, so nothing was read; run chmod 700 \(planted.store)")
        chmod(planted.store, 0o700)
        #expect(try keychain.read("apiToken") == "t0k3n")
    }

    @Test("a store file or directory of another user is refused, naming the owner")
    func foreignOwnerRefused() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        let file = planted.store + "/apiToken"
        planted.write("planted\n", to: file)
        #expect(chown(file, otherUser, gid_t(otherUser)) == 0)
        let keychain = planted.keychain()
        let fileError = #expect(throws: SecureStateError.self) { try keychain.read("apiToken") }
        #expect(fileError?.kind == .insecurePermissions)
        #expect(fileError?.detail.hasPrefix("it belongs to user \(otherUser), not to this process's user \(geteuid())") == true)
        #expect(fileError?.description.contains("planted") == false)

        #expect(chown(file, geteuid(), getegid()) == 0)
        #expect(try keychain.read("apiToken") == "planted")
        #expect(chown(planted.store, otherUser, gid_t(otherUser)) == 0)
        let directoryError = #expect(throws: SecureStateError.self) { try keychain.read("apiToken") }
        #expect(directoryError?.kind == .insecurePermissions)
        #expect(directoryError?.source == "the secret store directory \(planted.store)")
        #expect(directoryError?.detail.hasPrefix("the directory \(planted.store) belongs to user \(otherUser)") == true)
        let writeError = #expect(throws: SecureStateError.self) { try keychain.write("new", forKey: "apiToken") }
        #expect(writeError?.kind == .insecurePermissions)
        #expect(writeError?.detail.contains("so nothing was written") == true)
    }

    @Test("devices and sockets are not read either")
    func deviceRefused() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        #expect(symlink("/dev/zero", planted.mount + "/endless") == 0)
        let keychain = planted.keychain()
        let outcome = readWithoutHanging(keychain, "endless")
        let result = try #require(outcome, "the read of /dev/zero did not end")
        guard case let .failure(error) = result else { Issue.record("read a device: \(result)"); return }
        #expect(error.kind == .notRegularFile)
        #expect(error.detail == "it is a character device, not a regular file, so it is not read")
    }

    @Test("temporary files a crash left in the store are swept by the next write; a fresh one is kept")
    func abandonedTemporariesSwept() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        let abandoned = planted.store + "/.apiToken.tmp-\(UUID().uuidString)"
        let fresh = planted.store + "/.other.tmp-\(UUID().uuidString)"
        let unrelated = planted.store + "/.notes"
        for path in [abandoned, fresh, unrelated] { planted.write("leftover\n", to: path) }
        let anHourAgo = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: abandoned)
        try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: unrelated)
        try planted.keychain().write("t0k3n", forKey: "apiToken")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: planted.store))
        #expect(names == ["apiToken", (fresh as NSString).lastPathComponent, ".notes"])
    }

    @Test("every key that passes validation can be written: the limit leaves room for the temporary file's name")
    func longestKeyWritable() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        let keychain = planted.keychain()
        let longest = String(repeating: "k", count: SecretKey.maximumLength)
        try keychain.write("long", forKey: longest)
        #expect(try keychain.read(longest) == "long")
        for length in (SecretKey.maximumLength + 1)...256 {
            let key = String(repeating: "k", count: length)
            let error = #expect(throws: SecureStateError.self) { try keychain.write("x", forKey: key) }
            #expect(error?.kind == .invalidKey)
        }
        #expect(SecretKey.maximumLength == 213)
    }

    @Test("a file larger than the limit is refused by its size; one that fits is read whole")
    func sizeLimit() throws {
        let planted = Planted()
        defer { planted.directory.remove() }
        planted.write(String(repeating: "a", count: 65) + "\n", to: planted.mount + "/big", mode: 0o644)
        planted.write(String(repeating: "b", count: 63) + "\n", to: planted.mount + "/fits", mode: 0o644)
        let keychain = planted.keychain(sizeLimit: 64)
        let error = #expect(throws: SecureStateError.self) { try keychain.read("big") }
        #expect(error?.kind == .tooLarge)
        #expect(error?.detail == "it holds 66 bytes, more than the keychain's limit of 64")
        #expect(try keychain.read("fits") == String(repeating: "b", count: 63))
    }
}
