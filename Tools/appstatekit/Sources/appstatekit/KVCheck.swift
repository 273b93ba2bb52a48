import AppStateKit
import ArgumentParser
import Foundation

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
