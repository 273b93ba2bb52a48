import ArgumentParser

/// `appstatekit secrets`. (Skeleton: its owner replaces this file.)
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "secrets", abstract: "Not written yet.")

    func run() async throws {
        throw ToolExit.failure
    }
}
