import AppStateKit
import ArgumentParser
import Foundation

/// `appstatekit sync`: SyncState values in the embedded store or the PostgreSQL table, read and
/// written through the stores' own code, so a write bumps the version and notifies running
/// instances exactly as an app's write does.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "See and change SyncState values: the embedded store (--sync-file) or PostgreSQL (--postgres).",
        discussion: """
        Keys are written as the app spells them, <feature>/<id> (App/maintenance); values are JSON \
        ('true', '42', '"text"', '{"on":true}'). A write goes through the store like an app's: it \
        gets the next version and running instances see it at once.
        """,
        subcommands: [SyncList.self, SyncGet.self, SyncSet.self, SyncDelete.self, SyncWatch.self, SyncUpdate.self]
    )
}

/// `appstatekit sync list`: every key with a value, its version and value.
struct SyncList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List every key with a value, its version and value.")

    @OptionGroup var store: SyncStoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let json = output.json
        try await syncReportingFailures {
            try await store.withStore { store, location in
                let records: [SyncRecord]
                do {
                    records = try await store.snapshot().filter { $0.value != nil }.sorted { $0.key < $1.key }
                } catch {
                    throw SyncToolError("can't list \(location): \(error)")
                }
                if json {
                    syncPrint("{\"store\":\(SyncText.jsonString(location)),\"entries\":[" + records.map { SyncRecordOutput.json($0) }.joined(separator: ",") + "]}")
                } else if records.isEmpty {
                    syncPrint("no keys in \(location)")
                } else {
                    syncPrint(SyncRecordOutput.table(records))
                }
            }
        }
    }
}

/// `appstatekit sync get KEY`: one key's value and version, read from the store now.
struct SyncGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Print a key's value and version (exit status 1 when it has none)."
    )

    @Argument(help: "The key, <feature>/<id>.") var key: String
    @OptionGroup var store: SyncStoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (key, json) = (key, output.json)
        try await syncReportingFailures {
            try await store.withStore { store, location in
                try SyncKeyArgument.check(key, forWriting: false, store: location)
                let record: SyncRecord?
                do {
                    record = try await store.fetchRecord(forKey: key)
                } catch {
                    throw SyncToolError("can't read sync key \(SyncText.shown(key)) from \(location): \(error)")
                }
                guard let record, let value = record.value else {
                    let why = record.map { "removed at version \($0.version)" } ?? "never written"
                    throw SyncToolError("sync key \(SyncText.shown(key)) has no value in \(location) (\(why))")
                }
                if json {
                    syncPrint(SyncRecordOutput.json(record))
                } else {
                    syncPrint("\(SyncRecordOutput.shownValue(value))    (version \(record.version))")
                }
            }
        }
    }
}

/// `appstatekit sync set KEY JSON`: an unconditional write, as an app's setter makes.
struct SyncSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Write a key's value (JSON) with the next version; running instances see it at once."
    )

    @Argument(help: "The key, <feature>/<id>.") var key: String
    @Argument(help: "The value as JSON: true, 42, '\"text\"', '{\"on\":true}'.") var value: String
    @OptionGroup var store: SyncStoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (key, text, json) = (key, value, output.json)
        try await syncReportingFailures {
            let bytes = try SyncJSON.storedBytes(of: text, key: key)
            try await store.withStore(writes: true) { store, location in
                try SyncKeyArgument.check(key, forWriting: true, store: location)
                let record: SyncRecord
                do {
                    record = try await store.write(bytes, forKey: key)
                } catch {
                    throw SyncToolError("can't write sync key \(SyncText.shown(key)) to \(location): \(error)")
                }
                syncPrint(json ? SyncRecordOutput.json(record) : "set \(SyncText.shown(key)) to \(SyncRecordOutput.shownValue(record.value)), version \(record.version), in \(location)")
            }
        }
    }
}

/// `appstatekit sync delete KEY`: removes the key for good, as `SyncState.reset()` after a
/// removal does: instances read the initial value.
struct SyncDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Remove a key; instances then read its initial value."
    )

    @Argument(help: "The key, <feature>/<id>.") var key: String
    @OptionGroup var store: SyncStoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (key, json) = (key, output.json)
        try await syncReportingFailures {
            try await store.withStore(writes: true) { store, location in
                try SyncKeyArgument.check(key, forWriting: false, store: location)
                let record: SyncRecord
                do {
                    record = try await store.delete(forKey: key)
                } catch {
                    throw SyncToolError("can't delete sync key \(SyncText.shown(key)) from \(location): \(error)")
                }
                syncPrint(json ? SyncRecordOutput.json(record) : "deleted \(SyncText.shown(key)) at version \(record.version) in \(location)")
            }
        }
    }
}

/// `appstatekit sync update KEY JSON --expect VERSION`: a compare-and-set.
struct SyncUpdate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Write a key's value only if its version is still --expect (compare-and-set); exit status 1, with the current version, when it is not."
    )

    @Argument(help: "The key, <feature>/<id>.") var key: String
    @Argument(help: "The value as JSON.") var value: String
    @Option(help: ArgumentHelp("The version the key must have now (0: never written), as get printed it.", valueName: "version"))
    var expect: Int64
    @OptionGroup var store: SyncStoreOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard expect >= 0 else { throw ValidationError("--expect must be 0 or more") }
    }

    func run() async throws {
        let (key, text, expected, json) = (key, value, expect, output.json)
        try await syncReportingFailures {
            let bytes = try SyncJSON.storedBytes(of: text, key: key)
            try await store.withStore(writes: true) { store, location in
                try SyncKeyArgument.check(key, forWriting: true, store: location)
                let commit: SyncCommit
                do {
                    commit = try await store.compareAndSet(bytes, forKey: key, expectedVersion: expected)
                } catch {
                    throw SyncToolError("can't update sync key \(SyncText.shown(key)) in \(location): \(error)")
                }
                switch commit {
                case .committed(let record):
                    syncPrint(json ? SyncRecordOutput.json(record) : "updated \(SyncText.shown(key)) from version \(expected) to \(record.version) in \(location)")
                case .conflict(let current):
                    let version = current?.version ?? 0
                    if json {
                        syncPrint(SyncRecordOutput.json(key: key, version: version, value: current?.value, extra: [("conflict", "true"), ("expected", String(expected))]))
                    }
                    throw SyncToolError("sync key \(SyncText.shown(key)) is at version \(version), not \(expected) (its value: \(SyncRecordOutput.shownValue(current?.value))); nothing was written to \(location). Read it again and retry with --expect \(version)")
                }
            }
        }
    }
}

/// `appstatekit sync watch [KEY…]`: follows the feed running instances follow and prints each
/// change as it happens.
struct SyncWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each change as it happens (all keys, or the ones given) until interrupted; one JSON object per line with --json."
    )

    @Argument(help: "Keys to follow (default: every key).") var keys: [String] = []
    @OptionGroup var store: SyncStoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (keys, json) = (Set(keys), output.json)
        try await syncReportingFailures {
            try await store.withStore(watching: true) { store, location in
                for key in keys { try SyncKeyArgument.check(key, forWriting: false, store: location) }
                // Subscribed before the snapshot, so nothing committed in between is missed.
                let feed = store.changeFeed()
                var known: [String: SyncRecord] = [:]
                do {
                    for record in try await store.snapshot() { known[record.key] = record }
                } catch {
                    throw SyncToolError("can't read \(location): \(error)")
                }
                // On standard error: a script reading standard output gets only changes.
                syncPrintError("watching \(keys.isEmpty ? "every key" : "\(keys.count) key(s)") of \(location); interrupt to stop")
                func report(_ record: SyncRecord, _ change: String) {
                    guard keys.isEmpty || keys.contains(record.key) else { return }
                    if json {
                        syncPrint(SyncRecordOutput.json(record, extra: [("change", SyncText.jsonString(change))]))
                    } else {
                        let what = record.value == nil ? "removed" : SyncRecordOutput.shownValue(record.value)
                        syncPrint("\(SyncText.shown(record.key))  version \(record.version)  \(what)\(change == "replaced" ? "  (store replaced)" : "")")
                    }
                }
                for await change in feed {
                    switch change {
                    case .changed(let record):
                        if let held = known[record.key], held.version >= record.version { continue }
                        known[record.key] = record
                        report(record, "changed")
                    case .replaced(let records):
                        let now = Dictionary(records.map { ($0.key, $0) }, uniquingKeysWith: { $0.version >= $1.version ? $0 : $1 })
                        for record in records.sorted(by: { $0.key < $1.key }) where known[record.key] != record {
                            report(record, "replaced")
                        }
                        for (key, held) in known.sorted(by: { $0.key < $1.key }) where now[key] == nil && held.value != nil {
                            report(SyncRecord(key: key, value: nil, version: 0), "replaced")
                        }
                        known = now
                    }
                }
                throw SyncToolError("\(location) stopped delivering changes")
            }
        }
    }
}
