import Foundation

/// Runs the `AppStateKitPersistenceChild` executable that `swift test` builds next to the tests
/// (the test target depends on it), wherever the build directory is (`--scratch-path` too).
enum PersistenceChild {
    static var executable: URL {
        let name = "AppStateKitPersistenceChild"
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

    /// Starts the child, waits for its first acknowledged write, lets it run for a random
    /// 0–`window` more, kills it with SIGKILL and returns every value it acknowledged.
    ///
    /// Waiting for the first acknowledgement makes every kill land in the middle of the write
    /// sequence rather than during process start-up.
    static func runAndKill(_ arguments: [String], window: Duration = .milliseconds(40)) throws -> [Int] {
        let (process, output) = try start(arguments)
        let reader = output.fileHandleForReading
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }  // end of file: the child exited on its own
            received.append(chunk)
        }
        let windowMicroseconds = window.components.seconds * 1_000_000 + window.components.attoseconds / 1_000_000_000_000
        usleep(UInt32(Int64.random(in: 0...windowMicroseconds)))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        received.append(reader.readDataToEndOfFile())
        // Each acknowledgement is one small write to a pipe, so lines are never torn.
        return String(decoding: received, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
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
