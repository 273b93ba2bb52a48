import AppStateKit
import ArgumentParser
import Foundation

/// `appstatekit doctor`: checks a deployment's storage directories, secret store and sync file
/// (and, through `postgresFindings`, its PostgreSQL role and connection); prints each finding
/// with what to do; exit status 2 when any is a problem.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a deployment's stores, secrets and database, with what to do about each finding.",
        discussion: "Run it as the app's user. Exit status 2 when any finding is a problem; warnings alone exit 0."
    )

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("secrets-store"), help: ArgumentHelp("The writable secret store's directory (default: the storage name's).", valueName: "dir"))
    var secretsStore: String?

    @Option(name: .customLong("sync-file"), help: ArgumentHelp("The embedded SyncState store's file (default: the library's, beside the key-value store).", valueName: "path"))
    var syncFile: String?

    @Option(name: .customLong("file-state-directory"), help: ArgumentHelp("The FileState directory (default: the library's for the storage name).", valueName: "dir"))
    var fileStateDirectory: String?

    @OptionGroup var postgres: DoctorPostgresOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        var findings: [DoctorFinding] = []
        if checksLocalStores {
            try await reportingFailures {
                findings = try localFindings()
            }
        }
        findings += await postgresFindings(postgres)
        print(findings)
        if findings.contains(where: { $0.severity == .problem }) { throw ToolExit.problemsFound }
    }

    /// Whether to check the local stores: always, unless `--postgres` is given with no local
    /// store named (a database host usually keeps none of the app's files).
    var checksLocalStores: Bool {
        let namesLocalStore = store.store != nil || store.storageName != nil || secretsStore != nil
            || syncFile != nil || fileStateDirectory != nil
        return !postgres.postgres || namesLocalStore
    }

    /// The local checks: each default location the options name.
    func localFindings() throws -> [DoctorFinding] {
        let storePath = try store.storePath()
        let storeDirectory = (storePath as NSString).deletingLastPathComponent
        // An explicit --store alone checks that store (and what else is named); otherwise the
        // default locations of --storage-name (or of this program's name) are checked too.
        let usesDefaults = store.storageName != nil || store.store == nil
        if usesDefaults { try store.applyStorageName() }
        var findings: [DoctorFinding] = []
        findings += LocalChecks.directory(storeDirectory, role: "Key-value store directory")
        for suffix in ["", ".log"] {
            findings += LocalChecks.file(storePath + suffix, role: suffix.isEmpty ? "Key-value store" : "Key-value store log", optional: !suffix.isEmpty)
        }
        if let directory = fileStateDirectory ?? (usesDefaults ? FileManager.defaultFileStatePath : nil) {
            findings += LocalChecks.directory(directory, role: "FileState directory")
        }
        if let syncFile = syncFile ?? (usesDefaults ? LocalSyncStore.defaultPath : nil) {
            let directory = (syncFile as NSString).deletingLastPathComponent
            if directory != storeDirectory { findings += LocalChecks.directory(directory, role: "Sync file's directory") }
            findings += LocalChecks.file(syncFile, role: "Sync file", optional: true)
        }
        if let directory = secretsStore ?? (usesDefaults ? SecretSource.defaultFileStoreDirectory : nil) {
            findings += LocalChecks.secretStore(directory)
        }
        return findings
    }

    private func print(_ findings: [DoctorFinding]) {
        let problems = findings.filter { $0.severity == .problem }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        if output.json {
            let items: [JSONValue] = findings.map { finding in
                .object([
                    "severity": .string(finding.severity.rawValue), "title": .string(finding.title),
                    "detail": .string(finding.detail), "remedy": .string(finding.remedy),
                ])
            }
            Output.printJSON(["findings": .array(items), "problems": .int(problems), "warnings": .int(warnings)])
            return
        }
        for finding in findings {
            Output.printLine("[\(finding.severity.rawValue)] \(Output.singleLine(finding.title)): \(Output.singleLine(finding.detail))")
            if !finding.remedy.isEmpty { Output.printLine("    → \(Output.singleLine(finding.remedy))") }
        }
        Output.printLine("\(findings.count) \(findings.count == 1 ? "finding" : "findings"): \(problems) \(problems == 1 ? "problem" : "problems"), \(warnings) \(warnings == 1 ? "warning" : "warnings")")
    }
}
