// The child's commands that write through the `async` forms (`writeDurably(_:)`), for the kill
// rounds: a value is acknowledged once the `await` returned, and must survive SIGKILL.
import AppStateKit
import Foundation

/// Runs an `async-…` command and exits: 0 on success, 1 with the error on standard error.
func runAsyncWriteCommand(_ arguments: [String]) -> Never {
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            try await AsyncWriteCommand.run(arguments)
            done.signal()
        } catch {
            FileHandle.standardError.write(Data("\(arguments[0]) failed: \(error)\n".utf8))
            exit(1)
        }
    }
    done.wait()
    exit(0)
}

enum AsyncWriteCommand {
    static func run(_ arguments: [String]) async throws {
        switch arguments[0] {
        case "async-store-writers":
            // async-store-writers <store path> <tasks> <count> [log | compaction threshold]: each
            // task t writes "Child/w<t>" = 0, 1, 2, … with `writeDurably` and acknowledges
            // "<t> <value>" once the await returned; tasks run on the cooperative pool and their
            // writes share batches (group commit).
            ChildStore.store = childStore(arguments[1], layout: arguments.count > 4 ? arguments[4] : nil)
            let tasks = Int(arguments[2])!
            let count = Int(arguments[3])!
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        let state = Application().childKey("w\(task)")
                        for sequence in 0..<count {
                            try await state.writeDurably(sequence)
                            acknowledge("\(task) \(sequence)")
                        }
                    }
                }
                try await group.waitForAll()
            }
        case "async-file-sequence":
            // async-file-sequence <directory> <filename> <count>: as file-sequence, with `writeDurably`
            let padding = Array(repeating: String(repeating: "x", count: 100), count: 200)
            let file = Application().childFile(directory: arguments[1], filename: arguments[2])
            for sequence in 0..<Int(arguments[3])! {
                try await file.writeDurably(Payload(sequence: sequence, padding: padding))
                acknowledge("\(sequence)")
            }
        default:
            FileHandle.standardError.write(Data("unknown command \(arguments[0])\n".utf8))
            exit(2)
        }
    }
}
