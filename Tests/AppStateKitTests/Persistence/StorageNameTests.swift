import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// `Application.storageName` is process-wide and fixed once a default location is used, so each
/// case that sets it runs in a fresh child process, with the XDG directories pointed at a temporary directory
/// (the child only prints paths; nothing is written).
@Suite("Application.storageName", .isolatedApplication, .serialized)
struct StorageNameTests {
    /// The child executable's file name: its default storage name.
    static let childName = PersistenceChild.executable.lastPathComponent

    private struct Outcome {
        var status: Int32
        var output: [String]
        var errors: String
    }

    private func run(_ executable: String, _ arguments: [String], home: TemporaryDirectory) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.file("config")
        environment["XDG_DATA_HOME"] = home.file("data")
        // A stopped child would start the runtime's backtracer, which inherits the pipes and can
        // hold them open long after the child is gone (seen under AddressSanitizer).
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        if exited.wait(timeout: .now() + 60) == .timedOut { kill(process.processIdentifier, SIGKILL) }
        return Outcome(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self).split(separator: "\n").map(String.init),
            errors: String(decoding: errorData, as: UTF8.self)
        )
    }

    @Test("by default both locations use the executable's own name, also when it is started through a symlink")
    func symlinkFindsTheSameLocations() throws {
        let home = TemporaryDirectory()
        defer { home.remove() }
        let link = home.file("renamed-tool")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: PersistenceChild.executable.path)
        let direct = try run(PersistenceChild.executable.path, ["storage-paths"], home: home)
        let linked = try run(link, ["storage-paths"], home: home)
        #expect(direct.output == [
            home.file("config") + "/\(Self.childName)/defaults.json",
            home.file("data") + "/\(Self.childName)",
        ])
        #expect(linked.output == direct.output)
    }

    @Test("an explicit storage name is used by both default locations")
    func explicitName() throws {
        let home = TemporaryDirectory()
        defer { home.remove() }
        let outcome = try run(PersistenceChild.executable.path, ["storage-paths", "inventory-server"], home: home)
        #expect(outcome.output == [home.file("config") + "/inventory-server/defaults.json", home.file("data") + "/inventory-server"])
    }

    @Test("setting another name after a default location was used stops with a message naming both")
    func lateChangeStops() throws {
        let home = TemporaryDirectory()
        defer { home.remove() }
        let outcome = try run(PersistenceChild.executable.path, ["storage-name-late", "other"], home: home)
        #expect(outcome.status != 0)
        #expect(!outcome.output.contains("not stopped"))
        #expect(outcome.errors.contains(
            "AppStateKit: Application.storageName was set to \"other\" after the default locations were already used with \"\(Self.childName)\"; data would be split between two directories. Set Application.storageName first thing in main, before any StoredState or FileState is used."
        ))
    }

    @Test("a storage name must be one path component")
    func validation() {
        #expect(StorageName.problemDescription("ok-name") == nil)
        #expect(StorageName.problemDescription("") == "it is empty")
        #expect(StorageName.problemDescription("a/b") == "it contains \"/\"")
        #expect(StorageName.problemDescription("..") == "it is not a directory name")
    }
}
