// A child process for the persistence tests: writes through AppStateKit and prints each value
// once the write has returned ("acknowledged"), so the parent can kill it at any moment and
// check that nothing acknowledged was lost.
import AppStateKit
import Foundation

extension Application {
    var childSequence: StoredState<Int> {
        storedState(initial: -1, feature: "Child", id: "sequence", store: ChildStore.store)
    }

    func childKey(_ name: String) -> StoredState<Int> {
        storedState(initial: -1, feature: "Child", id: name, store: ChildStore.store)
    }

    func childFile(directory: String, filename: String) -> FileState<Payload> {
        fileState(initial: Payload(sequence: -1, padding: []), path: directory, filename: filename, isBase64Encoded: false)
    }
}

enum ChildStore {
    // Safe: set once in `main` before any use, then only read.
    nonisolated(unsafe) static var store: FileKeyValueStore!
}

struct Payload: Codable, Equatable, Sendable {
    var sequence: Int
    var padding: [String]
}

/// The store at `path`: with `layout` "log", in the append-only log layout; with a number, in
/// that layout compacting its log at that many bytes; otherwise in the default layout.
func childStore(_ path: String, layout: String?) -> FileKeyValueStore {
    guard let layout else { return FileKeyValueStore(path: path) }
    return FileKeyValueStore(
        path: path, layout: .appendOnlyLog, fileSystem: POSIXFileSystem(),
        compactionThreshold: Int(layout) ?? FileKeyValueStore.defaultCompactionThreshold
    )
}

/// The parent's process when the child started. A wait for the parent ends the child once that
/// parent is gone (a test run that crashed or was killed) instead of spinning forever.
let parentProcess = getppid()

/// Waits until `done` holds, polling every 100 µs; exits (status 3) if the parent went away.
func waitForParent(until done: () throws -> Bool) rethrows {
    while try !done() {
        if getppid() != parentProcess { exit(3) }
        usleep(100)
    }
}

func acknowledge(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments.dropFirst().map { $0 }
guard let command = arguments.first else {
    FileHandle.standardError.write(Data("usage: AppStateKitPersistenceChild <command> …\n".utf8))
    exit(2)
}

if command.hasPrefix("sync-") { runSyncCommand(arguments) }
if command.hasPrefix("async-") { runAsyncWriteCommand(arguments) }
switch command {
case "store-sequence":
    // store-sequence <store path> <count> [log | compaction threshold]
    ChildStore.store = childStore(arguments[1], layout: arguments.count > 3 ? arguments[3] : nil)
    let count = Int(arguments[2])!
    let state = Application.storedState(\.childSequence)
    for sequence in 0..<count {
        // The throwing form, so a failed write ends the child instead of being acknowledged.
        try state.write(sequence)
        acknowledge("\(sequence)")
    }
case "store-writers":
    // store-writers <store path> <threads> <count> [log | compaction threshold]: each thread t
    // writes "Child/w<t>" = 0, 1, 2, … and acknowledges "<t> <value>" once the write returned,
    // so concurrent writers share batches (group commit).
    ChildStore.store = childStore(arguments[1], layout: arguments.count > 4 ? arguments[4] : nil)
    let threads = Int(arguments[2])!
    let count = Int(arguments[3])!
    let group = DispatchGroup()
    for thread in 0..<threads {
        group.enter()
        Thread.detachNewThread {
            // (An application per thread: every one writes through the same store.)
            let state = Application().childKey("w\(thread)")
            for sequence in 0..<count {
                do {
                    try state.write(sequence)
                } catch {
                    FileHandle.standardError.write(Data("write failed: \(error)\n".utf8))
                    exit(1)
                }
                acknowledge("\(thread) \(sequence)")
            }
            group.leave()
        }
    }
    group.wait()
case "store-keys":
    // store-keys <store path> <prefix> <count> [log | compaction threshold]: writes
    // <prefix>-<i> = i, and "shared" = i
    ChildStore.store = childStore(arguments[1], layout: arguments.count > 4 ? arguments[4] : nil)
    let prefix = arguments[2]
    let count = Int(arguments[3])!
    let application = Application()
    for index in 0..<count {
        var state = application.childKey("\(prefix)-\(index)")
        state.value = index
        var shared = application.childKey("shared")
        shared.value = index
    }
    acknowledge("done")
case "file-sequence":
    // file-sequence <directory> <filename> <count>
    let directory = arguments[1]
    let filename = arguments[2]
    let count = Int(arguments[3])!
    let padding = Array(repeating: String(repeating: "x", count: 100), count: 200)
    let file = Application().childFile(directory: directory, filename: filename)
    for sequence in 0..<count {
        try file.write(Payload(sequence: sequence, padding: padding))
        acknowledge("\(sequence)")
    }
case "store-increment":
    // store-increment <store path> <count>: `update`s "Child/counter" by 1, count times
    ChildStore.store = FileKeyValueStore(path: arguments[1], durability: .processCrashSafe)
    let count = Int(arguments[2])!
    let counter = Application().childKey("counter")
    for _ in 0..<count {
        try counter.update { value in value = max(value, 0) + 1 }
    }
    acknowledge("done")
case "file-increment":
    // file-increment <directory> <filename> <count>: `update`s the file's sequence by 1, count times
    let file = Application().childFile(directory: arguments[1], filename: arguments[2])
    let count = Int(arguments[3])!
    for _ in 0..<count {
        try file.update { payload in payload.sequence = max(payload.sequence, 0) + 1 }
    }
    acknowledge("done")
case "store-pingpong":
    // store-pingpong <store path> <rounds>: writes "Child/sequence" = i, acknowledges it, then
    // waits until the parent wrote "Child/seen" = i (read through this process's own cache).
    ChildStore.store = FileKeyValueStore(path: arguments[1])
    let rounds = Int(arguments[2])!
    let application = Application()
    let sequence = application.childKey("sequence")
    let seen = application.childKey("seen")
    for round in 0..<rounds {
        try sequence.write(round)
        acknowledge("\(round)")
        try waitForParent { try seen.read() == round }
    }
case "file-pingpong":
    // file-pingpong <directory> <rounds>: writes payload.json's sequence = i, acknowledges it,
    // then waits until the parent wrote seen.json's sequence = i.
    let application = Application()
    let payload = application.childFile(directory: arguments[1], filename: "payload.json")
    let seen = application.childFile(directory: arguments[1], filename: "seen.json")
    let rounds = Int(arguments[2])!
    for round in 0..<rounds {
        try payload.write(Payload(sequence: round, padding: []))
        acknowledge("\(round)")
        try waitForParent { try seen.read().sequence == round }
    }
case "storage-paths":
    // storage-paths [name]: sets Application.storageName when given, prints both default paths
    if arguments.count > 1 { Application.storageName = arguments[1] }
    acknowledge(FileKeyValueStore.defaultPath)
    acknowledge(FileManager.defaultFileStatePath)
case "storage-name-late":
    // storage-name-late <name>: uses a default path, then sets another name (which must stop)
    acknowledge(FileKeyValueStore.defaultPath)
    Application.storageName = arguments[1]
    acknowledge("not stopped")
default:
    FileHandle.standardError.write(Data("unknown command \(command)\n".utf8))
    exit(2)
}
