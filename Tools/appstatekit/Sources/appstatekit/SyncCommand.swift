import ArgumentParser

/// `appstatekit sync`. (Skeleton: its owner replaces this file.)
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Not written yet.")

    func run() async throws {
        throw ToolExit.failure
    }
}
