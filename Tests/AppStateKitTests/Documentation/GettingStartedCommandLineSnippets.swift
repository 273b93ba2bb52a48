// GettingStarted.md's command-line snippet, verbatim, run where the disk refuses the write
// (the guide's declarations are in GettingStartedSnippets.swift).
import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// What the snippet prints, kept instead of shown (the run stays quiet).
private let printed = Locked<[String]>([])
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: separator)) }
}

/// Appends `line` to the history: 0 once it is on disk, 1 (and why) if not.
func recordGreeting(_ line: String) -> Int32 {
    let history = Application.fileState(\.history)
    do {
        try history.write(try history.read() + [line])
        print("Saved.")
        return 0
    } catch {
        print("Not saved: \(error)")
        return 1
    }
}

/// Issue 43, item 8: on a file system that refuses writes (a read-only HOME), the CLI path's
/// exit status says so, while the setter only reports.
@Suite("Getting started: a command-line tool sees a failed write", .isolatedApplication)
struct GettingStartedCommandLineTests {
    @Test func aRefusedWriteChangesTheExitStatusTheSetterOnlyReports() throws {
        let files = InMemoryFileSystem()
        files.fail(.makeDirectory, at: "/", with: EROFS)
        files.fail(.create, at: "/", with: EROFS)
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            #expect(recordGreeting("Hello, Ada!") == 1)
            #expect(printed.withLock { $0.last } == "Not saved: read-only file system for /root: mkdir failed (EROFS)")
            let unchanged = try Application.fileState(\.history).read()
            #expect(unchanged == [])

            let reports = capturingLogs {
                var history = Application.fileState(\.history)
                history.value.append("Hello, Ada!")
            }
            #expect(reports.count == 1)
            #expect(reports == ["AppStateKit: read-only file system for /root: mkdir failed (EROFS)"])
            diagnostic("the setter's report: \(reports)")

            files.removeFailures()
            #expect(recordGreeting("Hello, Ada!") == 0)
            #expect(printed.withLock { $0.last } == "Saved.")
            let saved = try Application.fileState(\.history).read()
            #expect(saved.last == "Hello, Ada!")
        }
    }
}
