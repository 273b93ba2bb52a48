import Foundation

/// Runs the `_AppStateKitTestChild` executable (sources in `Tests/PersistenceChild`) that `swift test` builds next to the tests
/// (the test target depends on it), wherever the build directory is (`--scratch-path` too).
enum PersistenceChild {
    static var executable: URL {
        let name = "_AppStateKitTestChild"
        #if os(Linux)
        // The test runner is an executable in the build products directory.
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return runner.deletingLastPathComponent().appendingPathComponent(name)
        #else
        // The tests are an `.xctest` bundle in the build products directory.
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") } ?? Bundle.main
        return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
        #endif
    }

    /// A started child: its process, its standard output, and a signal of its exit.
    struct Running {
        let process: Process
        let output: FileHandle
        let exited: DispatchSemaphore
        /// The child's standard error, when ``start(_:capturingErrors:)`` was asked to keep it.
        let errors: FileHandle?

        /// Waits for the child to exit, at most `timeout`; kills it if it is still running then.
        ///
        /// Waits on the termination handler rather than `Process.waitUntilExit()`, which can
        /// hang when called off the main thread on Linux after many child processes.
        /// - Returns: Whether the child exited within `timeout`.
        @discardableResult
        func waitForExit(timeout: Duration = hangLimit) -> Bool {
            if exited.wait(timeout: .now() + .seconds(Int(timeout.components.seconds))) == .success { return true }
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            return false
        }

        /// Reads the child's output until `isEnough` says so, the child closes it, or `timeout`
        /// passes — so a stuck child can't hang the test.
        func read(timeout: Duration = hangLimit, until isEnough: (Data) -> Bool = { _ in false }) -> Data {
            var received = Data()
            let deadline = ContinuousClock.now + timeout
            while !isEnough(received), ContinuousClock.now < deadline {
                var descriptor = pollfd(fd: output.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let chunk = output.availableData
                if chunk.isEmpty { break }  // end of file: the child exited
                received.append(chunk)
            }
            return received
        }
    }

    /// Starts the child with `arguments`; its standard output goes to a pipe, and so does its
    /// standard error with `capturingErrors` (read it once the child exited).
    static func start(_ arguments: [String], capturingErrors: Bool = false) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let errors = capturingErrors ? Pipe() : nil
        if let errors { process.standardError = errors }
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        return Running(process: process, output: output.fileHandleForReading, exited: exited, errors: errors?.fileHandleForReading)
    }

    /// Starts the child, waits for its first acknowledged write, lets it run for a random
    /// 0–`window` more, kills it with SIGKILL and returns every value it acknowledged.
    ///
    /// Waiting for the first acknowledgement makes every kill land in the middle of the write
    /// sequence rather than during process start-up.
    static func runAndKill(_ arguments: [String], window: Duration = .milliseconds(40)) throws -> [Int] {
        try runAndKillLines(arguments, window: window).compactMap { Int($0) }
    }

    /// ``runAndKill(_:window:)`` returning the acknowledgement lines as they are.
    static func runAndKillLines(_ arguments: [String], window: Duration = .milliseconds(40)) throws -> [Substring] {
        let child = try start(arguments)
        var received = child.read { $0.contains(UInt8(ascii: "\n")) }
        let windowMicroseconds = window.components.seconds * 1_000_000 + window.components.attoseconds / 1_000_000_000_000
        usleep(UInt32(Int64.random(in: 0...windowMicroseconds)))
        if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) }
        child.waitForExit()
        received.append(child.read())
        // Each acknowledgement is one small write to a pipe, so lines are never torn.
        return String(decoding: received, as: UTF8.self).split(separator: "\n")
    }

    /// How many kill rounds to run: 50 by default, `APPSTATEKIT_KILL_ROUNDS` to change it.
    static var killRounds: Int {
        ProcessInfo.processInfo.environment["APPSTATEKIT_KILL_ROUNDS"].flatMap(Int.init) ?? 50
    }

    /// The names in `directory` that are temporary files of an atomic write.
    static func temporaryFiles(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
    }
}
