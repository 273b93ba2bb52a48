import AppStateKit
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `appstatekit secrets`: the keys of a keychain and where each comes from; never a value.
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets",
        abstract: "List secrets' keys and sources, set and delete secrets in the writable store. Values are never printed.",
        subcommands: [SecretsList.self, SecretsSet.self, SecretsDelete.self]
    )
}

/// The keychain's sources, as the app's default keychain has them, each changeable.
struct SecretSourceOptions: ParsableArguments {
    @Option(
        name: .customLong("storage-name"),
        help: ArgumentHelp("The app's Application.storageName: its default secret store is $XDG_CONFIG_HOME/<name>/secrets.", valueName: "name")
    )
    var storageName: String?

    @Option(name: .customLong("secrets-store"), help: ArgumentHelp("The writable secret store's directory (instead of the storage name's).", valueName: "dir"))
    var secretsStore: String?

    @Option(name: .customLong("credentials-directory"), help: ArgumentHelp("The systemd credentials directory (default: $CREDENTIALS_DIRECTORY).", valueName: "dir"))
    var credentialsDirectory: String?

    @Option(name: .customLong("mount"), help: ArgumentHelp("The mounted secrets directory.", valueName: "dir"))
    var mount = "/run/secrets"

    @Option(name: .customLong("env-prefix"), help: ArgumentHelp("The prefix of the app's secret environment variables.", valueName: "prefix"))
    var environmentPrefix = ""

    /// The sources in the default keychain's order.
    func sources() throws -> [(kind: String, source: SecretSource)] {
        let store: SecretSource
        if let secretsStore {
            store = .fileStore(directory: secretsStore)
        } else {
            try StoreOptions(storageName: storageName).applyStorageName()
            if storageName == nil { StoreOptions.noteDefaultName() }
            store = .fileStore(directory: SecretSource.defaultFileStoreDirectory)
        }
        return [
            ("credentials directory", .credentialsDirectory(credentialsDirectory)),
            ("mount", .secretsDirectory(mount)),
            ("environment", .environment(prefix: environmentPrefix)),
            ("store", store),
        ]
    }

    func keychain(keys: Set<String> = []) throws -> Keychain {
        let sources = try sources()
        try OwnerGuard.check(storeDirectory(), what: "the secret store")
        return Keychain(sources: sources.map(\.source), keys: keys)
    }

    /// The writable store's directory (after ``sources()`` applied the storage name).
    func storeDirectory() -> String {
        secretsStore ?? SecretSource.defaultFileStoreDirectory
    }
}

extension StoreOptions {
    init(storageName: String?) {
        self.init()
        self.storageName = storageName
    }
}

/// `secrets list [KEY…]`.
struct SecretsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List secrets' keys and where each comes from (never values).",
        discussion: "Environment variables can't be mapped back to keys: name such keys as arguments to see whether the environment provides them."
    )

    @Argument(help: "Keys to look up as well (for secrets only the environment holds).") var keys: [String] = []
    @OptionGroup var sources: SecretSourceOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            let all = try sources.sources()
            let keychain = Keychain(sources: all.map(\.source), keys: Set(keys))
            let single = all.map { (kind: $0.kind, keychain: Keychain(sources: [$0.source])) }
            var rows: [[String]] = []
            var entries: [JSONValue] = []
            var failed = false
            for key in try keychain.listedKeys() {
                do {
                    guard let origin = try keychain.origin(of: key) else {
                        rows.append([key, "-", "no source has it"])
                        entries.append(.object(["key": .string(key), "source": .null]))
                        continue
                    }
                    // The first source holding it provides it (read-only sources come first).
                    var holders: [String] = []
                    for source in single {
                        do {
                            if try source.keychain.origin(of: key) != nil { holders.append(source.kind) }
                        } catch {
                            holders.append("\(source.kind) (unreadable: \(error))")
                        }
                    }
                    let kind = holders.first ?? "-"
                    rows.append([key, kind, origin + (holders.count > 1 ? " (also in: \(holders.dropFirst().joined(separator: ", ")))" : "")])
                    entries.append(.object([
                        "key": .string(key), "source": .string(kind), "origin": .string(origin),
                        "alsoIn": .array(holders.dropFirst().map(JSONValue.string)),
                    ]))
                } catch {
                    failed = true
                    rows.append([key, "unreadable", "\(error)"])
                    entries.append(.object(["key": .string(key), "problem": .string("\(error)")]))
                }
            }
            if output.json {
                Output.printJSON(["secrets": .array(entries)])
            } else {
                Output.printTable(["KEY", "SOURCE", "WHERE"], rows, empty: "(no secrets found)")
            }
            if failed { throw ToolExit.failure }
        }
    }
}

/// `secrets set KEY`: the value from standard input, or a prompt without echo; never an argument.
struct SecretsSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Store a secret in the writable store, reading it from standard input or a prompt without echo.",
        discussion: "The value is never an argument (ps would show it). From a pipe, one trailing newline is removed."
    )

    @Argument(help: "The key, e.g. dbPassword or Billing.apiKey.") var key: String
    @OptionGroup var sources: SecretSourceOptions
    @OptionGroup var output: OutputOptions
    /// Whatever else was typed: refused without being echoed, since it may be the secret.
    @Argument(parsing: .allUnrecognized, help: .hidden) var unexpected: [String] = []

    func validate() throws {
        guard unexpected.isEmpty else {
            throw ValidationError(
                "secrets set takes only the key and options: a value is never taken as an argument (ps shows arguments to every user); pipe it to standard input or type it at the prompt. The rest of the command line is not repeated here, as it may hold the secret."
            )
        }
    }

    func run() async throws {
        try await reportingFailures {
            let keychain = try sources.keychain()
            let value = try Self.readValue(key: key, limit: keychain.sizeLimit)
            try keychain.write(value, forKey: key)
            let origin = (try? keychain.origin(of: key)) ?? nil
            if output.json {
                Output.printJSON(["key": .string(key), "stored": .bool(true), "origin": origin.map(JSONValue.string) ?? .null])
            } else {
                Output.printLine("stored secret \(Output.singleLine(key)) in \(origin ?? "the writable store")")
            }
        }
    }

    /// The value: a line typed at a prompt without echo on a terminal, else all of standard
    /// input (at most `limit` bytes) less one trailing newline.
    static func readValue(key: String, limit: Int) throws -> String {
        if isatty(STDIN_FILENO) == 1 { return try prompt(key: key, limit: limit) }
        let data = try FileHandle.standardInput.read(upToCount: limit + 2) ?? Data()
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
        if text.utf8.count > limit { throw ToolError("the secret for \(key) on standard input is larger than the keychain's limit of \(limit) bytes") }
        if text.isEmpty { throw ToolError("no value for secret \(key) on standard input") }
        return text
    }

    private static func prompt(key: String, limit: Int) throws -> String {
        FileHandle.standardError.write(Data("Value for secret \(key) (not shown): ".utf8))
        var saved = termios()
        let canHide = tcgetattr(STDIN_FILENO, &saved) == 0
        if canHide {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden)
        }
        defer {
            if canHide { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw ToolError("no value typed for secret \(key)") }
        if line.utf8.count > limit { throw ToolError("the secret for \(key) is larger than the keychain's limit of \(limit) bytes") }
        return line
    }
}

/// `secrets delete KEY`.
struct SecretsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove a secret from the writable store.")

    @Argument(help: "The key.") var key: String
    @OptionGroup var sources: SecretSourceOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            let keychain = try sources.keychain()
            try keychain.delete(key)
            if output.json {
                Output.printJSON(["key": .string(key), "deleted": .bool(true)])
            } else {
                Output.printLine("deleted secret \(Output.singleLine(key)) from the writable store")
            }
        }
    }
}
