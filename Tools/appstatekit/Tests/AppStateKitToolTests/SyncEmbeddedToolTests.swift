import AppStateKit
import AppStateKitTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

fileprivate extension Application {
    var toolMaintenance: SyncState<Bool> { syncState(initial: false, feature: "App", id: "maintenance") }
    var toolCounter: SyncState<Int> { syncState(initial: 0, feature: "App", id: "counter") }
}

/// `appstatekit sync` on the embedded store, run as the built binary against a file a running
/// app (this test process, with a LocalSyncStore on the same file) uses.
@Suite("appstatekit sync: the embedded store", .isolatedApplication)
struct SyncEmbeddedToolTests {
    @Test("a sync set from the tool reaches a running app's Application.values(of:) stream")
    func setReachesRunningApp() async throws {
        let path = try SyncTool.temporaryFolder() + "/sync.json"
        Application.promote(\.syncStore, with: LocalSyncStore(path: path))
        let values = Application.values(of: \.toolMaintenance)
        let seen = await syncWithin(.seconds(120)) {
            var iterator = values.makeAsyncIterator()
            guard await iterator.next() == false else { return false }
            let result = try? await SyncTool.run(["sync", "set", "App/maintenance", "true", "--sync-file", path])
            guard result?.status == 0 else { return false }
            while let value = await iterator.next() {
                if value { return true }
            }
            return false
        }
        #expect(seen == true)
        #expect(Application.syncState(\.toolMaintenance).value == true)
        let record = try #require(try await LocalSyncStore(path: path).fetchRecord(forKey: "App/maintenance"))
        #expect(record.value == Data("true".utf8))
        #expect(record.version >= 1)
    }

    @Test("set, get, list and delete print what the store holds, for people and as JSON")
    func setGetListDelete() async throws {
        let path = try SyncTool.temporaryFolder() + "/sync.json"
        let set = try await SyncTool.run(["sync", "set", "Checkout/limits", #"{ "max" : 5, "b": [true, null, "x/y"] }"#, "--sync-file", path, "--json"])
        #expect(set.status == 0, "\(set.stderr)")
        let written = try #require(syncJSONObject(set.stdout.split(separator: "\n").first ?? ""))
        #expect(written["key"] as? String == "Checkout/limits")
        #expect((written["version"] as? NSNumber)?.int64Value == 1)
        // Stored as the value codec writes: compact, keys sorted.
        let stored = try #require(try await LocalSyncStore(path: path).fetchRecord(forKey: "Checkout/limits"))
        let storedText = String(decoding: stored.value ?? Data(), as: UTF8.self)
        #expect(storedText.hasPrefix(#"{"b":[true,null,"x"#))
        #expect(storedText.hasSuffix(#""max":5}"#))

        let get = try await SyncTool.run(["sync", "get", "Checkout/limits", "--sync-file", path])
        #expect(get.status == 0)
        #expect(get.stdout.contains("version 1"))
        #expect(get.stdout.contains(#""max":5"#))

        _ = try await LocalSyncStore(path: path).write(Data("7".utf8), forKey: "App/other")
        let list = try await SyncTool.run(["sync", "list", "--sync-file", path, "--json"])
        #expect(list.status == 0)
        let listed = try #require(syncJSONObject(list.stdout.split(separator: "\n").first ?? ""))
        let entries = try #require(listed["entries"] as? [[String: Any]])
        #expect(entries.map { $0["key"] as? String } == ["App/other", "Checkout/limits"])
        #expect((entries[0]["value"] as? NSNumber)?.intValue == 7)
        let table = try await SyncTool.run(["sync", "list", "--sync-file", path])
        #expect(table.stdout.split(separator: "\n").first?.hasPrefix("KEY") == true)
        #expect(table.stdout.split(separator: "\n").count == 3)

        let delete = try await SyncTool.run(["sync", "delete", "App/other", "--sync-file", path])
        #expect(delete.status == 0)
        #expect(try await LocalSyncStore(path: path).fetchRecord(forKey: "App/other")?.value == nil)
        let gone = try await SyncTool.run(["sync", "get", "App/other", "--sync-file", path])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("App/other") && gone.stderr.contains("removed at version"))
        #expect(gone.stderr.contains(path))
    }

    @Test("--storage-name finds the sync file where the library puts an app's: $XDG_CONFIG_HOME/<name>/sync.json")
    func storageNameResolvesTheDefaultFile() async throws {
        let configHome = try SyncTool.temporaryFolder()
        let set = try await SyncTool.run(["sync", "set", "App/mode", "3", "--storage-name", "inventory"], environment: ["XDG_CONFIG_HOME": configHome])
        #expect(set.status == 0, "\(set.stderr)")
        let record = try await LocalSyncStore(path: configHome + "/inventory/sync.json").fetchRecord(forKey: "App/mode")
        #expect(record?.value == Data("3".utf8))
        let badName = try await SyncTool.run(["sync", "list", "--storage-name", "../etc"], environment: ["XDG_CONFIG_HOME": configHome])
        #expect(badName.status == 1)
        #expect(badName.stderr.contains("--storage-name"))
        let both = try await SyncTool.run(["sync", "list", "--sync-file", configHome + "/x.json", "--postgres", "--host", "127.0.0.1", "--user", "x"])
        #expect(both.status == 1)
        #expect(both.stderr.contains("--sync-file and --postgres"))
    }

    @Test(
        "run as root, a write to another user's sync file is refused (its lock file would lock the app out); reading it works",
        .enabled(if: geteuid() == 0, "needs root, to give the file to another user")
    )
    func rootDoesNotWriteAnAppsStore() async throws {
        let folder = try SyncTool.temporaryFolder()
        let path = folder + "/sync.json"
        _ = try await LocalSyncStore(path: path).write(Data("1".utf8), forKey: "App/mode")
        for file in [folder, path, path + ".lock"] where FileManager.default.fileExists(atPath: file) {
            #expect(chown(file, 4242, 4242) == 0)
        }
        let set = try await SyncTool.run(["sync", "set", "App/mode", "2", "--sync-file", path])
        #expect(set.status == 1)
        #expect(set.stderr.contains("runs as root") && set.stderr.contains(path))
        let get = try await SyncTool.run(["sync", "get", "App/mode", "--sync-file", path])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try await LocalSyncStore(path: path).fetchRecord(forKey: "App/mode")?.value == Data("1".utf8))
    }

    @Test("a value that isn't JSON, or a key an app can't read, is refused with exit 1 and nothing written")
    func refusesBadInput() async throws {
        let path = try SyncTool.temporaryFolder() + "/sync.json"
        let notJSON = try await SyncTool.run(["sync", "set", "App/mode", "on", "--sync-file", path])
        #expect(notJSON.status == 1)
        #expect(notJSON.stderr.contains("App/mode") && notJSON.stderr.contains("not JSON"))
        let noFeature = try await SyncTool.run(["sync", "set", "maintenance", "true", "--sync-file", path])
        #expect(noFeature.status == 1)
        #expect(noFeature.stderr.contains("<feature>/<id>"))
        let tooLong = try await SyncTool.run(["sync", "get", String(repeating: "k", count: 300), "--sync-file", path])
        #expect(tooLong.status == 1)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a hostile key is shown escaped: a newline or an escape sequence can't forge a line")
    func hostileKeyIsEscaped() async throws {
        let path = try SyncTool.temporaryFolder() + "/sync.json"
        _ = try await LocalSyncStore(path: path).write(Data("1".utf8), forKey: "App/evil\nApp/forged\u{1B}[2J")
        let table = try await SyncTool.run(["sync", "list", "--sync-file", path])
        #expect(table.status == 0)
        #expect(table.stdout.split(separator: "\n").count == 2)
        #expect(!table.stdout.contains("\u{1B}"))
        let json = try await SyncTool.run(["sync", "list", "--sync-file", path, "--json"])
        let listed = try #require(syncJSONObject(json.stdout.split(separator: "\n").first ?? ""))
        #expect((listed["entries"] as? [[String: Any]])?.first?["key"] as? String == "App/evil\nApp/forged\u{1B}[2J")
    }

    @Test("update --expect commits on the right version and fails with exit 1, naming the current version, on a wrong one")
    func updateIsCompareAndSet() async throws {
        let path = try SyncTool.temporaryFolder() + "/sync.json"
        let first = try await SyncTool.run(["sync", "update", "App/mode", #""a""#, "--expect", "0", "--sync-file", path])
        #expect(first.status == 0, "\(first.stderr)")
        let again = try await SyncTool.run(["sync", "update", "App/mode", #""b""#, "--expect", "0", "--sync-file", path])
        #expect(again.status == 1)
        #expect(again.stderr.contains("version 1, not 0"))
        let stale = try await SyncTool.run(["sync", "update", "App/mode", #""b""#, "--expect", "7", "--sync-file", path, "--json"])
        #expect(stale.status == 1)
        let conflict = try #require(syncJSONObject(stale.stdout.split(separator: "\n").first ?? ""))
        #expect(conflict["conflict"] as? Bool == true)
        #expect((conflict["version"] as? NSNumber)?.int64Value == 1)
        #expect(conflict["value"] as? String == "a")
        let record = try #require(try await LocalSyncStore(path: path).fetchRecord(forKey: "App/mode"))
        #expect(record.value == Data(#""a""#.utf8))
        let right = try await SyncTool.run(["sync", "update", "App/mode", #""b""#, "--expect", "1", "--sync-file", path])
        #expect(right.status == 0)
        #expect(try await LocalSyncStore(path: path).fetchRecord(forKey: "App/mode")?.value == Data(#""b""#.utf8))
    }

    @Test("watch prints each change as it happens, one JSON object per line")
    func watchFollowsTheFeed() async throws {
        let path = try SyncTool.temporaryFolder() + "/sync.json"
        let store = LocalSyncStore(path: path)
        _ = try await store.write(Data("1".utf8), forKey: "App/ignored")
        let watcher = try RunningSyncTool(["sync", "watch", "App/watched", "--sync-file", path, "--json"], environment: [:])
        #expect(await watcher.waitFor { _, stderr in stderr.contains("watching") })
        _ = try await store.write(Data("2".utf8), forKey: "App/ignored")
        _ = try await store.write(Data(#"{"on":true}"#.utf8), forKey: "App/watched")
        // The embedded store's feed delivers the file as it finds it: two quick commits of one
        // key may arrive as the newer one only, as they do to an app. One at a time here.
        #expect(await watcher.waitFor { stdout, _ in stdout.contains("App/watched") })
        _ = try await store.write(nil, forKey: "App/watched")
        #expect(await watcher.waitFor { stdout, _ in stdout.split(separator: "\n").count >= 2 })
        let result = await watcher.stop()
        let lines = result.stdout.split(separator: "\n").compactMap(syncJSONObject)
        #expect(lines.count == 2, "\(result.stdout)")
        #expect(lines.allSatisfy { $0["key"] as? String == "App/watched" && $0["change"] as? String == "changed" })
        #expect((lines.first?["value"] as? [String: Any])?["on"] as? Bool == true)
        #expect(lines.last?["value"] is NSNull)
        #expect((lines.last?["version"] as? NSNumber)?.int64Value == 4)
    }

    @Test("watch says when the store was replaced: a deleted sync file's keys print as removed")
    func watchReportsReplacement() async throws {
        let path = try SyncTool.temporaryFolder() + "/sync.json"
        _ = try await LocalSyncStore(path: path).write(Data("true".utf8), forKey: "App/flag")
        let watcher = try RunningSyncTool(["sync", "watch", "--sync-file", path, "--json"], environment: [:])
        #expect(await watcher.waitFor { _, stderr in stderr.contains("watching") })
        try FileManager.default.removeItem(atPath: path)
        #expect(await watcher.waitFor { stdout, _ in stdout.contains("App/flag") })
        let result = await watcher.stop()
        let line = try #require(result.stdout.split(separator: "\n").compactMap(syncJSONObject).first)
        #expect(line["key"] as? String == "App/flag")
        #expect(line["value"] is NSNull)
        #expect(line["change"] as? String == "replaced")
    }

    @Test("the tool and an app writing the same store at once lose nothing: counts exact")
    func concurrentWritesLoseNothing() async throws {
        let path = try SyncTool.temporaryFolder() + "/sync.json"
        Application.promote(\.syncStore, with: LocalSyncStore(path: path))
        let counter = Application.syncState(\.toolCounter)
        let appIncrements = 40
        let toolIncrements = 8
        let toolKeys = 8
        let app = Task {
            for index in 0..<appIncrements {
                try await counter.update { $0 += 1 }
                _ = try await LocalSyncStore(path: path).write(Data("\(index)".utf8), forKey: "App/app\(index)")
            }
        }
        // The tool increments through get and update --expect, retrying when it loses.
        var toolRuns = 0
        for index in 0..<toolKeys {
            let set = try await SyncTool.run(["sync", "set", "Tool/key\(index)", "\(index)", "--sync-file", path])
            #expect(set.status == 0, "\(set.stderr)")
        }
        for _ in 0..<toolIncrements {
            while true {
                toolRuns += 1
                let get = try await SyncTool.run(["sync", "get", "App/counter", "--sync-file", path, "--json"])
                let object = syncJSONObject(get.stdout.split(separator: "\n").first ?? "")
                let version = (object?["version"] as? NSNumber)?.int64Value ?? 0
                let value = (object?["value"] as? NSNumber)?.intValue ?? 0
                let update = try await SyncTool.run(["sync", "update", "App/counter", "\(value + 1)", "--expect", "\(version)", "--sync-file", path])
                if update.status == 0 { break }
                #expect(update.stderr.contains("not \(version)"), "\(update.stderr)")
            }
        }
        try await app.value
        let final = try await LocalSyncStore(path: path).snapshot()
        let byKey = Dictionary(final.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        #expect(byKey["App/counter"]?.value == Data("\(appIncrements + toolIncrements)".utf8))
        #expect((0..<appIncrements).allSatisfy { byKey["App/app\($0)"]?.value == Data("\($0)".utf8) })
        #expect((0..<toolKeys).allSatisfy { byKey["Tool/key\($0)"]?.value == Data("\($0)".utf8) })
        #expect(toolRuns >= toolIncrements)
    }
}
