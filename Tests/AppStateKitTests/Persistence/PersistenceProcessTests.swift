import Foundation
import Testing
@testable import AppStateKit

/// Runs the `AppStateKitPersistenceChild` executable that `swift test` builds next to the tests.
enum PersistenceChild {
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent()
            .appendingPathComponent("AppStateKitPersistenceChild")
    }

    /// Starts the child with `arguments`; its standard output goes to the returned pipe.
    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Kills the child with SIGKILL after `delay` and returns the values it acknowledged.
    static func runAndKill(_ arguments: [String], after delay: Duration) async throws -> [Int] {
        let (process, output) = try start(arguments)
        try await Task.sleep(for: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n").compactMap { Int($0) }
    }

    /// How many kill rounds to run: 50 by default, `APPSTATEKIT_KILL_ROUNDS` to change it.
    static var killRounds: Int {
        ProcessInfo.processInfo.environment["APPSTATEKIT_KILL_ROUNDS"].flatMap(Int.init) ?? 50
    }
}

@Suite("Persistence across processes", .serialized)
struct PersistenceProcessTests {
    @Test("SIGKILL at random moments never loses an acknowledged StoredState write nor corrupts the store")
    func storeSurvivesKill() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        var lost = 0
        var unreadable = 0
        var acknowledgedTotal = 0
        for _ in 0..<PersistenceChild.killRounds {
            let acknowledged = try await PersistenceChild.runAndKill(
                ["store-sequence", path, "100000"], after: .milliseconds(Int.random(in: 20...150))
            )
            acknowledgedTotal += acknowledged.count
            let store = FileKeyValueStore(path: path)
            do {
                let stored = try store.value(forKey: "Child/sequence") as? Int ?? -1
                if let last = acknowledged.last, stored < last { lost += 1 }
            } catch {
                unreadable += 1
            }
        }
        #expect(lost == 0)
        #expect(unreadable == 0)
        #expect(acknowledgedTotal > 0, "the child never got to write before being killed")
    }

    @Test("SIGKILL at random moments leaves the FileState file old or new and complete")
    func fileStateSurvivesKill() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var lost = 0
        var unreadable = 0
        var acknowledgedTotal = 0
        for _ in 0..<PersistenceChild.killRounds {
            let acknowledged = try await PersistenceChild.runAndKill(
                ["file-sequence", directory.path, "payload.json", "100000"], after: .milliseconds(Int.random(in: 20...150))
            )
            acknowledgedTotal += acknowledged.count
            guard FileManager.default.fileExists(atPath: directory.file("payload.json")) else {
                if !acknowledged.isEmpty { lost += 1 }
                continue
            }
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: directory.file("payload.json")))
                let payload = try JSONDecoder().decode(ChildPayload.self, from: data)
                if let last = acknowledged.last, payload.sequence < last { lost += 1 }
            } catch {
                unreadable += 1
            }
        }
        #expect(lost == 0)
        #expect(unreadable == 0)
        #expect(acknowledgedTotal > 0)
    }

    @Test("two processes writing 2 × 200 different keys to one store lose nothing; a shared key ends with a written value")
    func concurrentProcesses() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let (first, firstOutput) = try PersistenceChild.start(["store-keys", path, "a", "200"])
        let (second, secondOutput) = try PersistenceChild.start(["store-keys", path, "b", "200"])
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(second.terminationStatus == 0)
        _ = firstOutput.fileHandleForReading.readDataToEndOfFile()
        _ = secondOutput.fileHandleForReading.readDataToEndOfFile()

        let store = FileKeyValueStore(path: path)
        var missing: [String] = []
        for prefix in ["a", "b"] {
            for index in 0..<200 where store.object(forKey: "Child/\(prefix)-\(index)") as? Int != index {
                missing.append("\(prefix)-\(index)")
            }
        }
        #expect(missing.isEmpty, "lost keys: \(missing)")
        let shared = store.object(forKey: "Child/shared") as? Int
        #expect(shared == 199)
    }
}

/// The child's FileState payload.
private struct ChildPayload: Codable {
    var sequence: Int
    var padding: [String]
}
