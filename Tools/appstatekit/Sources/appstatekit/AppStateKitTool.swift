import ArgumentParser

/// `appstatekit`: see and change the stores an AppStateKit app keeps, from a shell.
///
/// Exit status: 0 on success, 1 on an error, 2 when `check` or `doctor` found problems
/// (``ToolExit``).
@main
struct AppStateKitTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstatekit",
        abstract: "See and change the stores an AppStateKit app keeps: key-value stores, FileState files, SyncState (embedded or PostgreSQL) and secrets.",
        discussion: "Exit status: 0 on success, 1 on an error, 2 when check or doctor found problems.",
        version: "1.0.0",
        subcommands: [KVCommand.self, FileCommand.self, SyncCommand.self, SecretsCommand.self, DoctorCommand.self]
    )
}
