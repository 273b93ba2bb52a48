import AppStateKit
import Foundation
import Synchronization
@testable import TodoCore

/// Captures what a command prints.
final class RecordingOutput: TodoOutput {
    private let lines = Mutex<(out: [String], err: [String])>(([], []))
    func print(_ line: String) { lines.withLock { $0.out.append(line) } }
    func printError(_ line: String) { lines.withLock { $0.err.append(line) } }
    var standardOutput: [String] { lines.withLock { $0.out } }
    var standardError: [String] { lines.withLock { $0.err } }
}

struct FixedClock: TodoClock {
    let date: Date
    func now() -> Date { date }
}
