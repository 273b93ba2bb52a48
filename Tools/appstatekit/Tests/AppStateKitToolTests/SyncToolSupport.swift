import Foundation
import Synchronization

/// What a finished run of the built `appstatekit` printed and how it exited.
struct SyncToolResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built binary (``ToolBinary``) the way an operator does, in a child process.
enum SyncTool {
    /// Runs `appstatekit arguments…` to completion. `environment` adds to (or, with a `nil`
    /// value, removes from) this process's environment; `XDG_CONFIG_HOME` defaults to a fresh
    /// folder, so nothing touches the real home directory.
    static func run(_ arguments: [String], environment: [String: String?] = [:]) async throws -> SyncToolResult {
        let running = try RunningSyncTool(arguments, environment: environment)
        return await running.finish()
    }

    static func childEnvironment(_ overrides: [String: String?]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = NSTemporaryDirectory() + "appstatekit-tool-tests-\(UUID().uuidString)"
        for (name, value) in overrides { environment[name] = value }
        return environment
    }

    /// A fresh folder for one test's files.
    static func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "appstatekit-sync-tool-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A running `appstatekit` child whose output is collected as it comes (for `watch`).
final class RunningSyncTool: Sendable {
    let process: Process
    private let output = Mutex<(stdout: Data, stderr: Data)>((Data(), Data()))
    private let done = Mutex<Int>(0)

    init(_ arguments: [String], environment: [String: String?]) throws {
        let process = Process()
        process.executableURL = ToolBinary.url
        process.arguments = arguments
        process.environment = SyncTool.childEnvironment(environment)
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        self.process = process
        try process.run()
        for (pipe, isError) in [(stdout, false), (stderr, true)] {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    output.withLock { isError ? $0.stderr.append(chunk) : $0.stdout.append(chunk) }
                }
                done.withLock { $0 += 1 }
            }
        }
    }

    var stdout: String { output.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    var stderr: String { output.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    /// Waits (polling, at most `limit`: a hang guard, not a timing assertion) until `condition`
    /// holds for the output; returns whether it did.
    func waitFor(within limit: Duration = .seconds(120), _ condition: (_ stdout: String, _ stderr: String) -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if condition(stdout, stderr) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(stdout, stderr)
    }

    /// Waits for the child to exit (and its output to be read) and returns what it did.
    func finish() async -> SyncToolResult {
        while process.isRunning || done.withLock({ $0 }) < 2 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return SyncToolResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// Stops the child (SIGTERM) and waits for it.
    func stop() async -> SyncToolResult {
        if process.isRunning { process.terminate() }
        return await finish()
    }
}

/// Runs `body`, giving up after `limit` (a hang guard): returns `nil` then.
func syncWithin<Value: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> Value) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// The JSON object on one line of output.
func syncJSONObject(_ line: Substring) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])) as? [String: Any]
}
