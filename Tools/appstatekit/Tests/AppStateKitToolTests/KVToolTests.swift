import AppStateKit
import AppStateKitTesting
import Foundation
import Synchronization
import Testing

/// Issue 46 items 1, 6, 7: `appstatekit kv` against real stores, running the built binary.
@Suite("appstatekit kv", .isolatedApplication)
struct KVToolTests {
    @Test("set of every type is seen by a running app's store; get, list and delete agree", arguments: [false, true])
    func setSeenByApp(log: Bool) throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("app/defaults.json")
        let app = FileKeyValueStore(path: path, layout: log ? .appendOnlyLog : .singleFile)
        try app.writeObject("before", forKey: "App/other")
        #expect(try app.readObject(forKey: "App/maintenance") == nil)

        #expect(try sandbox.run(["kv", "set", "App/maintenance", "true", "--bool", "--store", path]).status == 0)
        #expect(try sandbox.run(["kv", "set", "App/port", "8080", "--int", "--store", path]).status == 0)
        #expect(try sandbox.run(["kv", "set", "App/ratio", "0.25", "--double", "--store", path]).status == 0)
        #expect(try sandbox.run(["kv", "set", "App/name", "blue green", "--store", path]).status == 0)
        let json = try sandbox.run(["kv", "set", "App/limits", #"{"max": 3, "names": ["a", "b"], "on": false}"#, "--json", "--store", path])
        #expect(json.status == 0)
        #expect(try json.json()["type"] as? String == "dictionary")

        #expect(try app.readObject(forKey: "App/maintenance") as? Bool == true)
        #expect(try app.readObject(forKey: "App/port") as? Int == 8080)
        #expect(try app.readObject(forKey: "App/ratio") as? Double == 0.25)
        #expect(try app.readObject(forKey: "App/name") as? String == "blue green")
        let limits = try #require(try app.readObject(forKey: "App/limits") as? [String: Any])
        #expect(limits["max"] as? Int == 3)
        #expect(limits["names"] as? [String] == ["a", "b"])
        #expect(limits["on"] as? Bool == false)
        // The tool kept the app's layout: with a log, its writes were appended to it.
        #expect(FileManager.default.fileExists(atPath: path + ".log") == log)

        let get = try sandbox.run(["kv", "get", "App/port", "--store", path, "--json"])
        #expect(try get.json()["value"] as? Int == 8080)
        #expect(try get.json()["type"] as? String == "int")
        #expect(try sandbox.run(["kv", "get", "App/name", "--store", path]).stdout == "blue green\n")

        let list = try sandbox.run(["kv", "list", "--store", path, "--json"])
        let entries = try #require(try list.json()["entries"] as? [[String: Any]])
        #expect(entries.compactMap { $0["key"] as? String } == ["App/limits", "App/maintenance", "App/name", "App/other", "App/port", "App/ratio"])
        let table = try sandbox.run(["kv", "list", "--store", path])
        #expect(table.stdout.contains("App/port") && table.stdout.contains("8080") && table.stdout.hasPrefix("KEY"))

        #expect(try sandbox.run(["kv", "delete", "App/maintenance", "--store", path]).status == 0)
        #expect(try app.readObject(forKey: "App/maintenance") == nil)
        #expect(try app.readObject(forKey: "App/other") as? String == "before")
    }

    @Test("a kv set from the tool reaches a running app's Application.values(of:) stream over the same store")
    func reachesValuesStream() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("app/defaults.json")
        let store = FileKeyValueStore(path: path)
        try await Application.withOverrides({ $0.override(\.userDefaults, with: store as any UserDefaultsManaging) }) {
            let seen = try await withThrowingTaskGroup(of: Bool.self) { group in
                let ready = AsyncStream<Void>.makeStream()
                group.addTask {
                    var first = true
                    for await value in Application.values(of: \.toolTestMaintenance, pollInterval: .milliseconds(20)) {
                        if first {
                            first = false
                            ready.continuation.yield()
                        }
                        if value { return true }
                    }
                    return false
                }
                group.addTask {
                    // Hang guard, not a timing check.
                    try await Task.sleep(for: .seconds(120))
                    return false
                }
                var iterator = ready.stream.makeAsyncIterator()
                await iterator.next()
                let result = try sandbox.run(["kv", "set", "App/maintenance", "true", "--bool", "--store", path])
                #expect(result.status == 0, "\(result.stderr)")
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
            #expect(seen, "the app's stream delivered the tool's write")
            #expect(Application.storedState(\.toolTestMaintenance).value == true)
        }
    }

    @Test("a Codable value kept as JSON data (as StoredState keeps one) is shown as JSON and set as JSON data the app decodes")
    func codableJSONData() throws {
        struct Limits: Codable, Equatable {
            var max: Int
            var names: [String]
        }
        let sandbox = try Sandbox()
        let path = sandbox.path("defaults.json")
        let app = FileKeyValueStore(path: path)
        try app.writeObject(try JSONEncoder().encode(Limits(max: 1, names: [])), forKey: "App/limits")
        let get = try sandbox.run(["kv", "get", "App/limits", "--store", path, "--json"])
        #expect(try get.json()["type"] as? String == "json")
        #expect((try get.json()["value"] as? [String: Any])?["max"] as? Int == 1)

        let set = try sandbox.run(["kv", "set", "App/limits", #"{"max": 5, "names": ["x"]}"#, "--json", "--store", path])
        #expect(set.status == 0, "\(set.stderr)")
        let stored = try #require(try app.readObject(forKey: "App/limits") as? Data)
        #expect(try JSONDecoder().decode(Limits.self, from: stored) == Limits(max: 5, names: ["x"]))
    }

    @Test("the default store is the library's for the storage name, under XDG_CONFIG_HOME")
    func defaultLocation() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.run(["kv", "set", "App/x", "1", "--int", "--storage-name", "inventory"]).status == 0)
        let app = FileKeyValueStore(path: sandbox.path("config/inventory/defaults.json"))
        #expect(try app.readObject(forKey: "App/x") as? Int == 1)
    }

    @Test("bad input exits 1 naming the key and the store, and changes nothing", arguments: [
        ["kv", "set", "App/port", "eighty", "--int"], ["kv", "set", "App/on", "maybe", "--bool"], ["kv", "set", "App/r", "nan", "--double"],
        ["kv", "set", "App/j", "{broken", "--json"], ["kv", "set", "App/j", "null", "--json"], ["kv", "get", "App/missing"],
    ])
    func badInput(arguments: [String]) throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("defaults.json")
        try FileKeyValueStore(path: path).writeObject(1, forKey: "App/keep")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try sandbox.run(arguments + ["--store", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains(arguments[2]), "names the key: \(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("run as root on another user's store, the tool refuses before creating anything there (a root-owned lock file would lock the app out)",
          .enabled(if: geteuid() == 0, "the guard acts only for root; run the tests as root to check it"))
    func rootOnAnotherUsersStore() throws {
        let sandbox = try Sandbox()
        let directory = sandbox.path("app")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chown(directory, 4242, 4242) == 0)
        for arguments in [["kv", "set", "App/x", "1"], ["kv", "list"], ["kv", "compact"]] {
            let result = try sandbox.run(arguments + ["--store", directory + "/defaults.json"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("uid 4242"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "no lock file, no store file")
    }

    @Test("a storage name that is not one path component is refused without a crash")
    func badStorageName() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["kv", "list", "--storage-name", "../etc"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--storage-name"))
        let unnamed = try sandbox.run(["kv", "set", "App/x", "1", "--int"])
        #expect(unnamed.status == 0, "no store named: the library's default for this program")
        #expect(unnamed.stderr.contains("--storage-name"), "with a note saying how to name the app's")
        #expect(FileManager.default.fileExists(atPath: sandbox.path("config/appstatekit/defaults.json")))
    }

    @Test("check finds a damaged entry planted in the file: exit 2 naming the key; the others read; a clean store exits 0")
    func checkFindsDamage() throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("defaults.json")
        let app = FileKeyValueStore(path: path)
        for key in ["App/a", "App/b", "App/c"] { try app.writeObject(7, forKey: key) }
        let clean = try sandbox.run(["kv", "check", "--store", path, "--json"])
        #expect(clean.status == 0)
        #expect(try clean.json()["checked"] as? Int == 3)

        // Flip bytes of App/b's type tag: {"int": 7} becomes {"inT": 7}.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = String(decoding: bytes, as: UTF8.self)
        let entry = try #require(text.range(of: #""App\/b""#) ?? text.range(of: #""App/b""#))
        let tag = try #require(text.range(of: "\"int\"", range: entry.upperBound..<text.endIndex))
        let offset = text.utf8.distance(from: text.startIndex, to: tag.lowerBound) + 3
        bytes[offset] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: path))

        let damaged = try sandbox.run(["kv", "check", "--store", path, "--json"])
        #expect(damaged.status == 2)
        let found = try #require(try damaged.json()["damaged"] as? [[String: Any]])
        #expect(found.compactMap { $0["key"] as? String } == ["App/b"])
        let table = try sandbox.run(["kv", "check", "--store", path])
        #expect(table.status == 2)
        #expect(table.stdout.contains("App/b") && !table.stdout.contains("App/a"))

        // The whole file damaged: exit 2, and writes are refused rather than moving the file aside.
        try Data("{\"App/a\": {\"int\": 7}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try sandbox.run(["kv", "check", "--store", path]).status == 2)
        let write = try sandbox.run(["kv", "set", "App/a", "1", "--int", "--store", path])
        #expect(write.status == 1)
        #expect(write.stderr.contains(path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"App/a\": {\"int\": 7}")
    }

    @Test("compact folds a log into the file under the lock; every key still reads")
    func compact() throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("defaults.json")
        let app = FileKeyValueStore(path: path, layout: .appendOnlyLog)
        for index in 0..<50 { try app.writeObject(index, forKey: "App/k\(index)") }
        let result = try sandbox.run(["kv", "compact", "--store", path, "--json"])
        #expect(result.status == 0)
        #expect(try result.json()["compacted"] as? Bool == true)
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        #expect(file?.count == 50, "the file alone holds every key")
        for index in 0..<50 { #expect(try app.readObject(forKey: "App/k\(index)") as? Int == index) }
    }

    @Test("watch prints each change as one JSON object per line, as the app writes")
    func watch() throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("defaults.json")
        let app = FileKeyValueStore(path: path)
        try app.writeObject(1, forKey: "App/flag")
        let watcher = try sandbox.start(["kv", "watch", "App/flag", "--store", path, "--json", "--count", "3", "--interval", "20"])
        try watcher.wait { $0.stderr.contains("watching") }
        try app.writeObject(2, forKey: "App/flag")
        try watcher.wait { $0.stdout.split(separator: "\n").count >= 1 }
        try app.writeObject(3, forKey: "App/other")  // not watched
        try app.writeObject("three", forKey: "App/flag")
        try watcher.wait { $0.stdout.split(separator: "\n").count >= 2 }
        try app.writeObject(nil, forKey: "App/flag")
        let result = try watcher.finish()
        #expect(result.status == 0)
        let lines = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.count == 3)
        #expect(lines.map { $0["change"] as? String } == ["set", "set", "deleted"])
        #expect(lines.first?["value"] as? Int == 2)
        #expect(lines.dropFirst().first?["value"] as? String == "three")
        #expect(lines.allSatisfy { $0["key"] as? String == "App/flag" })
    }

    @Test("tool writes while the app writes other keys of the same store: every write of both is there (counts exact)", arguments: [false, true])
    func concurrentWriters(log: Bool) async throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("defaults.json")
        let app = FileKeyValueStore(path: path, layout: log ? .appendOnlyLog : .singleFile)
        try app.writeObject(0, forKey: "app/start")
        let toolWrites = 24
        let stop = StopFlag()
        // The app keeps writing keys of its own until the tool's last write returned, so the
        // two overlap for the whole run.
        let appTask = Task.detached { () throws -> Int in
            var written = 0
            while !stop.isSet || written < 50 {
                try app.writeObject(written, forKey: "app/\(written)")
                written += 1
            }
            return written
        }
        for index in 0..<toolWrites {
            let result = try sandbox.run(["kv", "set", "tool/\(index)", "\(index)", "--int", "--store", path])
            #expect(result.status == 0, "\(result.stderr)")
        }
        stop.set()
        let appWrites = try await appTask.value
        let fresh = FileKeyValueStore(path: path)
        let keys = try fresh.keys
        #expect(keys.filter { $0.hasPrefix("tool/") }.count == toolWrites)
        #expect(keys.filter { $0.hasPrefix("app/") && $0 != "app/start" }.count == appWrites)
        for index in 0..<toolWrites { #expect(try fresh.readObject(forKey: "tool/\(index)") as? Int == index) }
        for index in 0..<appWrites { #expect(try fresh.readObject(forKey: "app/\(index)") as? Int == index) }
    }

    @Test("completion scripts come from the argument parser")
    func completions() throws {
        let sandbox = try Sandbox()
        let bash = try sandbox.run(["--generate-completion-script", "bash"])
        #expect(bash.status == 0)
        #expect(bash.stdout.contains("appstatekit") && bash.stdout.contains("compact"))
    }
}

/// A flag one task sets and another polls.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

extension Application {
    /// A StoredState as an app declares it: key `App/maintenance` in `\.userDefaults`.
    var toolTestMaintenance: StoredState<Bool> { storedState(initial: false, id: "maintenance") }
}
