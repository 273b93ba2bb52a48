#if PostgreSQL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `_AppStateKitPostgresChild`, which `swift test` builds next to the test runner.
struct PostgresChild {
    static var executable: URL {
        #if os(Linux)
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("_AppStateKitPostgresChild")
        #else
        (Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") } ?? Bundle.main)
            .bundleURL.deletingLastPathComponent().appendingPathComponent("_AppStateKitPostgresChild")
        #endif
    }

    let process: Process
    private let output: FileHandle
    private let exited: DispatchSemaphore
    private var buffer = Data()

    /// Starts the child with `arguments` (the connection settings are inherited); as the owner
    /// role when `asOwner` is set, else as the application role.
    init(_ arguments: [String], asOwner: Bool = false) throws {
        process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["APPSTATEKIT_CHILD_ROLE"] = asOwner ? "owner" : "app"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        output = pipe.fileHandleForReading
        let exited = DispatchSemaphore(value: 0)
        self.exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    /// The next line of output, or `nil` at end of output or after `timeout`.
    mutating func nextLine(timeout: Duration = .seconds(60)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            guard ContinuousClock.now < deadline else { return nil }
            var descriptor = pollfd(fd: output.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let chunk = output.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Reads lines until one equals `line`; false at end of output or after `timeout`.
    mutating func waitFor(_ line: String, timeout: Duration = .seconds(60)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while let next = nextLine(timeout: deadline - ContinuousClock.now) {
            if next == line { return true }
        }
        return false
    }

    /// Waits for the exit (killing the child after `timeout`); returns its status.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(120)) -> Int32 {
        if exited.wait(timeout: .now() + .seconds(Int(timeout.components.seconds))) != .success {
            Glibc.kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        return process.terminationStatus
    }

    /// SIGKILL, then waits for the exit.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        exited.wait()
    }
}
#endif
