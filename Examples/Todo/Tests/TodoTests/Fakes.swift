import AppStateKit
import Foundation
@testable import TodoCore

/// Captures what a command prints.
final class RecordingOutput: TodoOutput, @unchecked Sendable {
    // Safe: `lines` is only accessed while `lock` is held.
    private let lock = NSLock()
    private var lines: (out: [String], err: [String]) = ([], [])
    func print(_ line: String) { lock.withLock { lines.out.append(line) } }
    func printError(_ line: String) { lock.withLock { lines.err.append(line) } }
    var standardOutput: [String] { lock.withLock { lines.out } }
    var standardError: [String] { lock.withLock { lines.err } }
}

struct FixedClock: TodoClock {
    let date: Date
    func now() -> Date { date }
}
