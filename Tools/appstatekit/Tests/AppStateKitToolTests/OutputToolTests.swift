import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// Issue 46 item 6: `--json` on every command (one object, or one per line for watch), help for
/// every command, the documented exit statuses.
@Suite("appstatekit output: --json everywhere, help, exit statuses", .isolatedApplication)
struct OutputToolTests {
    /// Every command of this part, as a script would run it on a store holding `App/a`, a
    /// FileState file and a secret.
    static let commands: [[String]] = [
        ["kv", "list"], ["kv", "get", "App/a"], ["kv", "set", "App/b", "[1, 2]", "--json"], ["kv", "delete", "App/b"],
        ["kv", "watch", "--count", "1"], ["kv", "compact"], ["kv", "check"],
        ["file", "show", "FILE"], ["file", "check", "FILE"], ["file", "edit", "FILE"],
        ["secrets", "list"], ["secrets", "set", "token"], ["secrets", "delete", "token"], ["doctor"],
    ]

    @Test("with --json each command prints JSON objects only, one per line, and exits 0", arguments: commands)
    func json(command: [String]) throws {
        let sandbox = try Sandbox()
        try FileKeyValueStore(path: sandbox.path("config/shop/defaults.json")).writeObject(1, forKey: "App/a")
        let file = sandbox.path("data/shop/settings.json")
        try FileManager.default.createDirectory(atPath: sandbox.path("data/shop"), withIntermediateDirectories: true)
        try Data(#"{"a": 1}"#.utf8).write(to: URL(fileURLWithPath: file))
        let arguments = command.map { $0 == "FILE" ? file : $0 } + (command.contains("--json") ? [] : ["--json"])
            + (command[0] == "file" ? [] : ["--storage-name", "shop"])
        let running = try sandbox.start(arguments, environment: ["EDITOR": "true"], stdin: Data("value\n".utf8))
        if command == ["kv", "watch", "--count", "1"] {
            try running.wait { $0.stderr.contains("watching") }
            try FileKeyValueStore(path: sandbox.path("config/shop/defaults.json")).writeObject(2, forKey: "App/a")
        }
        let result = try running.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(!lines.isEmpty && result.stdout.hasSuffix("\n"))
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not one JSON object: \(line)")
        }
    }

    @Test("every command has help (exit 0); a wrong command line exits 64 from the argument parser", arguments: commands)
    func help(command: [String]) throws {
        let sandbox = try Sandbox()
        let words = Array(command.prefix { !$0.hasPrefix("-") && $0 != "FILE" && !$0.hasPrefix("App/") && $0 != "token" && !$0.hasPrefix("[") })
        let help = try sandbox.run(words + ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE"))
        #expect(try sandbox.run(words + ["--no-such-option"]).status == 64)
    }
}
