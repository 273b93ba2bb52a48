import AppStateKit
import Foundation
import ServerRequestWork

// A loop of one operation, for instruction counts under valgrind (see Scripts/instructions.sh):
// counts don't depend on how busy the machine is, so they compare code changes exactly.
//
// Usage: appstatekit-profile <operation> <count> [--rss], or --list for the operations. With
// --rss it prints the resident set size before and after the loop.
//
// Persisted operations keep their files in a temporary directory the program creates at start
// and deletes before it exits; they never touch the user's real stores.

final class ProfiledService: Sendable {}

/// The temporary directory of this run's persisted entries (a fixed-length name from `mkdtemp`,
/// so its path costs the same number of instructions in every run).
enum ProfileDirectory {
    static let path: String = {
        var template = Array(URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appstatekit-profile-XXXXXX").path.utf8CString)
        guard let created = mkdtemp(&template) else {
            FileHandle.standardError.write(Data("appstatekit-profile: mkdtemp failed (errno \(errno))\n".utf8))
            exit(1)
        }
        return String(cString: created)
    }()

    /// Deletes the directory and everything the run wrote into it.
    static func remove() {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            FileHandle.standardError.write(Data("appstatekit-profile: could not remove \(path): \(error)\n".utf8))
            exit(1)
        }
    }
}

extension Application {
    var profiledService: Dependency<ProfiledService> { dependency(ProfiledService()) }
    var profiledCounter: State<Int> { state(initial: 0) }
    var profiledNamedCounter: State<Int> { state(initial: 0, feature: "Profile", id: "named") }
    var profiledSyncCounter: SyncState<Int> { syncState(initial: 0, feature: "Profile", id: "sync") }
    subscript(profiledRequest id: String) -> State<Int> { state(initial: 0, feature: "Request", id: id) }
    var profiledStored: StoredState<Int> { storedState(initial: 0, feature: "Profile", id: "stored") }
    var profiledFile: FileState<Int> { fileState(initial: 0, path: ProfileDirectory.path, filename: "profiled.json") }
}

/// Points `\.userDefaults` at a store in the run's temporary directory (default durability,
/// as an application gets it) and writes the profiled key once, so reads find a file.
func useTemporaryStore() {
    Application.promote(\.userDefaults, with: FileKeyValueStore(path: ProfileDirectory.path + "/store.json"))
    var stored = Application.storedState(\.profiledStored)
    stored.value = 1
}

struct ProfiledHolder: Sendable {
    @AppDependency(\.profiledService) var service
    @AppState(\.profiledCounter) var counter
}

@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

@inline(never)
func makeHolder() -> ProfiledHolder {
    ProfiledHolder()
}

@inline(never)
func read(_ holder: ProfiledHolder) -> ProfiledService {
    holder.service
}

@inline(never)
func readCounter(_ holder: ProfiledHolder) -> Int {
    holder.counter
}

let operations: [String: (Int) -> Void] = [
    "dependency": { count in
        for _ in 0..<count { consume(Application.dependency(\.profiledService)) }
    },
    "wrapper": { count in
        let holder = makeHolder()
        for _ in 0..<count { consume(read(holder)) }
    },
    "wrapper-state": { count in
        let holder = makeHolder()
        for _ in 0..<count { consume(readCounter(holder)) }
    },
    "state-read": { count in
        for _ in 0..<count { consume(Application.state(\.profiledCounter).value) }
    },
    "named-state-read": { count in
        for _ in 0..<count { consume(Application.state(\.profiledNamedCounter).value) }
    },
    "sync-read": { count in
        Application.promote(\.syncStore, with: InMemorySyncStore())
        // The first read starts the application's sync coordinator, whose store watcher starts
        // on a task of its own (~1.2 million instructions, once). Let it run before counting:
        // otherwise valgrind's scheduling decides whether it runs within a run, and the count
        // per operation moved by ±60 (754, 814 or 872) — with `--fair-sched=yes` the start-up
        // ran and without it not, in the same build.
        consume(Application.syncState(\.profiledSyncCounter).value)
        Thread.sleep(forTimeInterval: 0.2)
        for _ in 0..<count { consume(Application.syncState(\.profiledSyncCounter).value) }
    },
    "stored-read": { count in
        useTemporaryStore()
        for _ in 0..<count { consume(Application.storedState(\.profiledStored).value) }
    },
    // A store nobody wrote yet, in a directory that doesn't exist yet (a server's first run).
    "stored-read-absent": { count in
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: ProfileDirectory.path + "/unwritten/store.json"))
        for _ in 0..<count { consume(Application.storedState(\.profiledStored).value) }
    },
    // Alternates two values so every write costs the same (the encoded length doesn't grow).
    "stored-write": { count in
        useTemporaryStore()
        for index in 0..<count {
            var stored = Application.storedState(\.profiledStored)
            stored.value = index & 1
        }
    },
    "file-read": { count in
        var file = Application.fileState(\.profiledFile)
        file.value = 1
        for _ in 0..<count { consume(Application.fileState(\.profiledFile).value) }
    },
    "file-write": { count in
        for index in 0..<count {
            var file = Application.fileState(\.profiledFile)
            file.value = index & 1
        }
    },
    "state-write": { count in
        for index in 0..<count {
            var counter = Application.state(\.profiledCounter)
            counter.value = index
        }
    },
    "update": { count in
        for _ in 0..<count { Application.update(\.profiledCounter) { $0 += 1 } }
    },
    "scoped-override": { count in
        let mock = ProfiledService()
        for _ in 0..<count {
            Application.withOverrides { $0.override(\.profiledService, with: mock) } operation: {
                consume(Application.dependency(\.profiledService))
            }
        }
    },
    // What the example server's `GET /api/flags/:name` does through AppStateKit per request
    // (see `ServerRequestWork`).
    "server-request": { count in
        useTemporaryStore()
        ServerRequestWork.directory = ProfileDirectory.path
        for _ in 0..<count { consume(ServerRequestWork.appStateKit("request")) }
    },
    // The same work in plain Swift (the example's `/equivalent` route), for Scripts/code-footprint.sh.
    "plain-request": { count in
        for _ in 0..<count { consume(ServerRequestWork.plainSwift("request")) }
    },
    "create": { count in
        let application = Application()
        // Kept until exit: tearing the entries down is not part of creating them.
        _ = Unmanaged.passRetained(application)
        for index in 0..<count { consume(application.state(initial: 0, feature: "Profile", id: "entry-\(index)").value) }
    },
    // A server's per-request entries: a run-time id, written, then removed.
    "request-keep": { count in
        for index in 0..<count {
            var request = Application.state(\.[profiledRequest: "request-\(index)"])
            request.value = index
        }
    },
    "request-remove": { count in
        for index in 0..<count {
            var request = Application.state(\.[profiledRequest: "request-\(index)"])
            request.value = index
            Application.remove(state: request)
        }
    },
]

/// The resident set size in MB, from /proc/self/statm.
func residentMegabytes() -> Double {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = Double(statm.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0)
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

let arguments = CommandLine.arguments.dropFirst()
if arguments == ["--list"] {
    print(operations.keys.sorted().joined(separator: "\n"))
    exit(0)
}
let reportsMemory = arguments.last == "--rss"
let operationArguments = Array(reportsMemory ? arguments.dropLast() : arguments)
guard operationArguments.count == 2, let operation = operations[operationArguments[0]], let count = Int(operationArguments[1]), count > 0 else {
    let names = operations.keys.sorted().joined(separator: "|")
    FileHandle.standardError.write(Data("usage: appstatekit-profile <\(names)> <count> [--rss]\n".utf8))
    exit(2)
}
_ = ProfileDirectory.path
defer { ProfileDirectory.remove() }
if reportsMemory {
    _ = Application.state(\.profiledCounter).value
    let before = residentMegabytes()
    operation(count)
    print(String(format: "RSS %.1f MB at start, %.1f MB after %d × %@", before, residentMegabytes(), count, operationArguments[0]))
} else {
    operation(count)
}
