import Foundation
import Testing

/// One run of the built `appstatekit` binary: exit status and what it printed.
struct ToolResult {
    var status: Int32
    var stdout: String
    var stderr: String

    /// `stdout` parsed as one JSON object.
    func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "not a JSON object: \(stdout)")
    }
}

/// A private temporary directory for one test, removed at the end; the tool runs with its HOME,
/// XDG directories and TMPDIR inside it, so it never touches a real user's files.
final class Sandbox: Sendable {
    let root: String

    init() throws {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("appstatekit-tool-test.XXXXXX").utf8CString)
        let made = try #require(mkdtemp(&template))
        root = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    func path(_ relative: String) -> String {
        (root as NSString).appendingPathComponent(relative)
    }

    /// The environment the tool runs with: nothing of the caller's but PATH.
    var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": path("home"), "XDG_CONFIG_HOME": path("config"), "XDG_DATA_HOME": path("data"), "TMPDIR": path("tmp"),
        ]
    }

    /// Runs the tool with `arguments`, `stdin` as its standard input (empty when nil); fails the
    /// test (and kills the tool) when it runs longer than `timeout` — a hang guard, not a timing check.
    func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil, timeout: Double = 120) throws -> ToolResult {
        let process = try start(arguments, environment: extra, stdin: stdin)
        return try process.finish(timeout: timeout)
    }

    func start(_ arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil) throws -> RunningTool {
        try FileManager.default.createDirectory(atPath: path("tmp"), withIntermediateDirectories: true)
        let id = UUID().uuidString
        let out = path("tmp/\(id).out"), err = path("tmp/\(id).err"), input = path("tmp/\(id).in")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        _ = FileManager.default.createFile(atPath: input, contents: stdin ?? Data())
        let process = Process()
        process.executableURL = ToolBinary.url
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        try process.run()
        return RunningTool(process: process, stdoutPath: out, stderrPath: err, arguments: arguments)
    }
}

/// A tool process started by ``Sandbox/start(_:environment:stdin:)``.
struct RunningTool {
    let process: Process
    let stdoutPath: String
    let stderrPath: String
    let arguments: [String]

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits until `condition` holds on what the tool printed (hang guard: `timeout` seconds).
    func wait(timeout: Double = 120, until condition: (RunningTool) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(self) {
            if Date() > deadline || !process.isRunning && !condition(self) {
                if process.isRunning { process.terminate() }
                Issue.record("appstatekit \(arguments.joined(separator: " ")) never printed what was awaited; stdout: \(stdout) stderr: \(stderr)")
                throw CancellationError()
            }
            usleep(10_000)
        }
    }

    func finish(timeout: Double = 120) throws -> ToolResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                process.waitUntilExit()
                Issue.record("appstatekit \(arguments.joined(separator: " ")) did not finish (hang guard); stderr: \(stderr)")
                throw CancellationError()
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        return ToolResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}
