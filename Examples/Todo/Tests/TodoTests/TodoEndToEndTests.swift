import Foundation
import Testing

/// Runs the built `todo` executable in a temporary home directory.
@Suite("todo end to end")
struct TodoEndToEndTests {
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("todo")
    }

    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    static func todo(_ arguments: [String], home: String) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ["HOME": home, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self), error: String(decoding: errData, as: UTF8.self))
    }

    @Test func addThenListInAFreshHome() throws {
        let home = NSTemporaryDirectory() + "todo-home-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(try Self.todo(["add", "Buy milk"], home: home).status == 0)
        let list = try Self.todo(["list"], home: home)
        #expect(list.status == 0)
        #expect(list.output == "  1 [ ] Buy milk\n")
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/todo/todo.json"))
        let bad = try Self.todo(["frob"], home: home)
        #expect(bad.status == 2)
        #expect(bad.error.contains("unknown command 'frob'"))
    }

    @Test func twoRunsAtOnceLoseNothing() async throws {
        let home = NSTemporaryDirectory() + "todo-home-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: home) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in ["a", "b"] {
                group.addTask {
                    for index in 0..<20 {
                        let result = try Self.todo(["add", "\(writer)\(index)"], home: home)
                        #expect(result.status == 0, "\(result.error)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let list = try Self.todo(["list"], home: home)
        let lines = list.output.split(separator: "\n")
        #expect(lines.count == 40)
        #expect(Set(lines.map { $0.split(separator: " ").last! }).count == 40)
    }
}
