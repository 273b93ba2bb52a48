import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// Isolated applications write FileState into a sandbox that is deleted with them, so their
/// writes skip `fsync` (cheap tests). Proved by a file system on which every `fsync` fails.
@Suite("Isolated writes are not durable", .isolatedApplication)
struct SandboxDurabilityTests {
    @Test("a sandbox writes, replaces and reads back a file without one fsync; the durable writer on the same file system fails on it")
    func sandboxNeverSynchronizes() throws {
        let files = InMemoryFileSystem()
        // A root that exists only in memory: the sandbox's cleanup finds nothing on disk.
        let root = "/appstatekit-sandbox-\(UUID().uuidString)"
        let sandbox = SandboxFileManager(directory: SandboxDirectory(root: root), fileSystem: files)
        let target = root + "/home/me/.local/share/tool/list.json"
        files.fail(.sync, at: target, with: EIO)
        for directory in ["", "/home", "/home/me", "/home/me/.local", "/home/me/.local/share", "/home/me/.local/share/tool"] {
            files.fail(.syncDirectory, at: root + directory, with: EIO)
        }

        try sandbox.files.writeAtomically(Data("[1]".utf8), toFile: "/home/me/.local/share/tool/list.json")
        try sandbox.files.writeAtomically(Data("[1,2]".utf8), toFile: "/home/me/.local/share/tool/list.json")
        #expect(try sandbox.files.contents(ofFile: "/home/me/.local/share/tool/list.json") == Data("[1,2]".utf8))
        #expect(files.contents(atPath: target) == Data("[1,2]".utf8))

        // Control: the same replacement made durable reaches the injected fsync failure.
        #expect(throws: PersistenceError.self) {
            try AtomicFileWriter.write(Data("[3]".utf8), to: target, durable: true, in: files)
        }
        #expect(files.contents(atPath: target) == Data("[1,2]".utf8))
    }
}
