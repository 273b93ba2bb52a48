import AppStateKit
import ArgumentParser
import Foundation

/// `kv watch [KEY…]`: prints each change as it happens, by polling the store, whose reads cost a
/// shared-memory check while nothing changed.
struct KVWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print each change of the store (or of the keys named) as it happens.",
        discussion: "Runs until interrupted, or until --count changes were printed. Once the current values are read, \"watching <path>\" goes to standard error; with --json each change is one JSON object on one line."
    )

    @Argument(help: "The keys to watch; every key when none are named.") var keys: [String] = []
    @Option(help: "How often to look, in milliseconds.") var interval = 100
    @Option(help: "Stop after this many changes.") var count: Int?
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            guard interval > 0, interval <= 60_000 else { throw ToolError("--interval must be between 1 and 60000 milliseconds") }
            if let count, count < 1 { throw ToolError("--count must be positive") }
            let store = try store.openStore()
            var last = try snapshot(store)
            FileHandle.standardError.write(Data("watching \(store.path)\n".utf8))
            var printed = 0
            while count.map({ printed < $0 }) ?? true {
                try await Task.sleep(for: .milliseconds(interval))
                let now = try snapshot(store)
                for key in Set(last.keys).union(now.keys).sorted() where last[key] != now[key] {
                    print(key, now[key])
                    printed += 1
                    if let count, printed >= count { break }
                }
                last = now
            }
        }
    }

    /// The current state of the watched keys: value and type, or the damage; nil when absent.
    private func snapshot(_ store: FileKeyValueStore) throws -> [String: KVState] {
        var state: [String: KVState] = [:]
        for key in keys.isEmpty ? try store.keys : keys {
            switch KVRead.read(key, in: store) {
            case let .value(value, type): state[key] = KVState(value: value, type: type, damage: nil)
            case .missing: break
            case let .damaged(problem): state[key] = KVState(value: .null, type: "damaged", damage: problem)
            case let .failed(error): throw error
            }
        }
        return state
    }

    private func print(_ key: String, _ state: KVState?) {
        let time = Date().formatted(.iso8601)
        if output.json {
            var object: [String: JSONValue] = ["key": .string(key), "time": .string(time)]
            switch state {
            case nil: object["change"] = .string("deleted")
            case let state? where state.damage != nil:
                object["change"] = .string("damaged")
                object["problem"] = .string(state.damage ?? "")
            case let state?:
                object["change"] = .string("set")
                object["type"] = .string(state.type)
                object["value"] = state.value
            }
            Output.printJSON(object)
        } else {
            switch state {
            case nil: Output.printLine("\(time)  \(Output.singleLine(key)) deleted")
            case let state? where state.damage != nil: Output.printLine("\(time)  \(Output.singleLine(key)) damaged: \(state.damage ?? "")")
            case let state?: Output.printLine("\(time)  \(Output.singleLine(key)) = \(state.value.text) (\(state.type))")
            }
        }
    }
}

/// One key's state as `watch` compares it.
struct KVState: Equatable {
    var value: JSONValue
    var type: String
    var damage: String?
}
