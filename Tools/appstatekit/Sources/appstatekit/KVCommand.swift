import AppStateKit
import ArgumentParser
import Foundation

/// `appstatekit kv`: a StoredState key-value store (`FileKeyValueStore`, either layout).
struct KVCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "See and change a StoredState key-value store (FileKeyValueStore, either layout).",
        discussion: "Writes are durable and take the store's lock, so they are safe while apps run. Keys are spelled as the app's store holds them (for StoredState, <feature>/<id>, e.g. App/maintenance).",
        subcommands: [KVList.self, KVGet.self, KVSet.self, KVDelete.self, KVWatch.self, KVCompact.self, KVCheck.self]
    )
}

/// `kv list`: every key with its type and value; damaged entries say what is wrong.
struct KVList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List every key with its type and value.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            let store = try store.openStore()
            var rows: [[String]] = []
            var entries: [JSONValue] = []
            for key in try store.keys {
                switch KVRead.read(key, in: store) {
                case let .value(value, type):
                    rows.append([key, type, value.text])
                    entries.append(.object(["key": .string(key), "type": .string(type), "value": value]))
                case .missing:
                    continue
                case let .damaged(problem):
                    rows.append([key, "damaged", problem])
                    entries.append(.object(["key": .string(key), "damaged": .string(problem)]))
                case let .failed(error):
                    throw error
                }
            }
            if output.json {
                Output.printJSON(["store": .string(store.path), "entries": .array(entries)])
            } else {
                Output.printTable(["KEY", "TYPE", "VALUE"], rows, empty: "(no keys in \(store.path))")
            }
        }
    }
}

/// `kv get KEY`.
struct KVGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Print one key's value (a string as it is, other types as JSON).")

    @Argument(help: "The key, e.g. App/maintenance.") var key: String
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            let store = try store.openStore()
            switch KVRead.read(key, in: store) {
            case let .value(value, type):
                if output.json {
                    Output.printJSON(["store": .string(store.path), "key": .string(key), "type": .string(type), "value": value])
                } else if case let .string(text) = value, type == "string" {
                    Output.printLine(text)
                } else {
                    Output.printLine(value.text)
                }
            case .missing:
                throw ToolError("no key \"\(Output.singleLine(key))\" in \(store.path)")
            case let .damaged(problem):
                throw ToolError("the entry for key \"\(Output.singleLine(key))\" in \(store.path) is damaged: \(problem)")
            case let .failed(error):
                throw error
            }
        }
    }
}

/// The type `kv set` stores, as `defaults write` spells it.
enum KVValueType: String, EnumerableFlag {
    case string, int, bool, double, json

    static func help(for value: KVValueType) -> ArgumentHelp? {
        switch value {
        case .string: "Store the value as a string (the default)."
        case .int: "Store an integer."
        case .bool: "Store a Bool: true/false, yes/no, 1/0."
        case .double: "Store a floating-point number."
        case .json: "Parse the value as JSON and print the result as JSON. Kept as JSON data when the key holds JSON data (a StoredState of a Codable type), else as property-list values."
        }
    }
}

/// `kv set KEY VALUE`.
struct KVSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Store a value durably, through the store's lock.",
        discussion: "With --json the value is JSON and the result is printed as a JSON object."
    )

    @Argument(help: "The key, e.g. App/maintenance.") var key: String
    @Argument(help: "The value, read as the type flag says.") var value: String
    @Flag(exclusivity: .exclusive) var type: KVValueType = .string
    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingFailures {
            var parsed = try parse()
            let store = try store.openStore()
            try KVRead.refuseIfStoreDamaged(store, key: key)
            if type == .json, let current = Self.currentData(key, in: store), (try? JSONValue.parse(current)) != nil {
                // A StoredState of a Codable type keeps its value as JSON data: keep that form,
                // so the app decodes what the tool wrote.
                parsed = Data(Output.text(try JSONValue.parse(Data(value.utf8))).utf8)
            }
            try store.writeObject(parsed, forKey: key)
            let shown = JSONValue.of(storeValue: parsed)
            if type == .json {
                Output.printJSON(["store": .string(store.path), "key": .string(key), "type": .string(shown.type), "value": shown.value])
            } else {
                Output.printLine("\(Output.singleLine(key)) = \(shown.value.text) (\(shown.type)) in \(store.path)")
            }
        }
    }

    /// The data `key` holds now; nil for another type, no value, or a damaged entry (which
    /// this write replaces, as `kv check` advises).
    private static func currentData(_ key: String, in store: FileKeyValueStore) -> Data? {
        if case let .value(_, type) = KVRead.read(key, in: store), type == "json" || type == "data" {
            do {
                return try store.readObject(forKey: key) as? Data
            } catch {
                return nil  // Damaged since the read above: replaced like any damaged entry.
            }
        }
        return nil
    }

    private func parse() throws -> Any {
        let name = "the value for key \"\(Output.singleLine(key))\""
        switch type {
        case .string:
            return value
        case .int:
            guard let int = Int(value.trimmingCharacters(in: .whitespaces)) else { throw ToolError("\(name) is not an integer: \(Output.singleLine(value))") }
            return int
        case .bool:
            switch value.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw ToolError("\(name) is not a Bool (true/false, yes/no, 1/0): \(Output.singleLine(value))")
            }
        case .double:
            guard let double = Double(value.trimmingCharacters(in: .whitespaces)), double.isFinite else {
                throw ToolError("\(name) is not a finite number: \(Output.singleLine(value))")
            }
            return double
        case .json:
            do {
                return try JSONValue.parse(Data(value.utf8)).storeValue()
            } catch let error as ToolError {
                throw ToolError("\(name): \(error)")
            } catch {
                throw ToolError("\(name) is not JSON")
            }
        }
    }
}

/// `kv delete KEY`.
struct KVDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove a key durably (doing nothing when it is not there).")

    @Argument(help: "The key.") var key: String
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            let store = try store.openStore()
            try KVRead.refuseIfStoreDamaged(store, key: key)
            let existed = try store.keys.contains(key)
            if existed { try store.writeObject(nil, forKey: key) }
            if output.json {
                Output.printJSON(["store": .string(store.path), "key": .string(key), "deleted": .bool(existed)])
            } else {
                Output.printLine(existed ? "deleted \(Output.singleLine(key)) from \(store.path)" : "no key \(Output.singleLine(key)) in \(store.path); nothing to delete")
            }
        }
    }
}

/// `kv compact`.
struct KVCompact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "compact", abstract: "Fold the store's log into its file, under the store's lock.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            let store = try store.openStore()
            let result = try store.compact()
            switch result {
            case .nothingToCompact:
                if output.json {
                    Output.printJSON(["store": .string(store.path), "compacted": .bool(false)])
                } else {
                    Output.printLine("\(store.path) has no log: nothing to compact")
                }
            case let .compacted(logBytes):
                if output.json {
                    Output.printJSON(["store": .string(store.path), "compacted": .bool(true), "logBytes": .int(logBytes)])
                } else {
                    Output.printLine("compacted \(store.path): its log of \(logBytes) bytes is folded into the file")
                }
            }
        }
    }
}

/// `kv check`: every entry read; damage reported per key; exit status 2 when damaged.
struct KVCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Read every entry and report damage per key.",
        discussion: "Exit status 2 when an entry, the file or its log is damaged."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        var report = KVCheckReport()
        var path = ""
        try await reportingFailures {
            let store = try store.openStore()
            path = store.path
            report = try KVCheckReport(checking: store)
        }
        let (checked, damaged) = (report.checked, report.damaged)
        if output.json {
            let entries: [JSONValue] = damaged.map { item in
                .object(["key": item.key.map(JSONValue.string) ?? .null, "problem": .string(item.problem)])
            }
            Output.printJSON(["store": .string(path), "checked": .int(checked), "damaged": .array(entries)])
        } else if damaged.isEmpty {
            Output.printLine("\(path): \(checked) \(checked == 1 ? "entry" : "entries"), none damaged")
        } else {
            Output.printTable(
                ["KEY", "PROBLEM"], damaged.map { [$0.key ?? "(the whole store)", $0.problem] }, empty: ""
            )
            Output.printLine("\(path): \(damaged.count) damaged; a damaged entry is kept until its key is written (kv set or kv delete)")
        }
        if !damaged.isEmpty { throw ToolExit.problemsFound }
    }
}

/// What `kv check` found: how many entries it read and which are damaged (`key` nil: the
/// file or the log as a whole, when no entry can be read).
struct KVCheckReport {
    var checked = 0
    var damaged: [(key: String?, problem: String)] = []

    init() {}

    /// Reads every entry of `store`; throws only for failures that are not damage (a file that
    /// can't be read at all).
    init(checking store: FileKeyValueStore) throws {
        let keys = try store.keys
        if let problem = try KVRead.wholeStoreDamage(store) {
            // Every read fails until a write moves the file or log aside: no entry to check.
            damaged.append((nil, problem))
            return
        }
        for key in keys {
            checked += 1
            switch KVRead.read(key, in: store) {
            case .value, .missing: break
            case let .damaged(problem): damaged.append((key, problem))
            case let .failed(error): throw error
            }
        }
    }
}

/// Reading one key, sorting its outcome.
enum KVRead {
    enum Outcome {
        case value(JSONValue, type: String)
        case missing
        /// The entry (not the whole store) can't be read: what is wrong.
        case damaged(String)
        case failed(any Error)
    }

    static func read(_ key: String, in store: FileKeyValueStore) -> Outcome {
        do {
            guard let object = try store.readObject(forKey: key) else { return .missing }
            let shown = JSONValue.of(storeValue: object)
            return .value(shown.value, type: shown.type)
        } catch let error as PersistenceError where error.kind == .corruptData && error.subject != store.path {
            return .damaged(error.detail)
        } catch {
            return .failed(error)
        }
    }

    /// What is wrong with the store's file or log as a whole, or nil; other read failures throw.
    static func wholeStoreDamage(_ store: FileKeyValueStore) throws -> String? {
        do {
            // A key no app uses: reading it checks the file and the log, not an entry.
            _ = try store.readObject(forKey: "\u{0}appstatekit-check")
            return nil
        } catch let error as PersistenceError where error.kind == .corruptData && error.subject == store.path {
            return error.detail
        }
    }

    /// Refuses a write to a store whose file or log is damaged as a whole: the write would move
    /// it aside and the app would lose every key in it. `kv check` shows what is wrong.
    static func refuseIfStoreDamaged(_ store: FileKeyValueStore, key: String) throws {
        if let problem = try wholeStoreDamage(store) {
            throw ToolError(
                "not writing key \"\(Output.singleLine(key))\": the store \(store.path) is damaged (\(problem)); a write would move it aside. Run kv check, then restore or move the file away yourself"
            )
        }
    }
}
