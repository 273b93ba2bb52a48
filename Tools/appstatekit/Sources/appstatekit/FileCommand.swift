import ArgumentParser

/// `appstatekit file`. (Skeleton: its owner replaces this file.)
struct FileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "file", abstract: "Not written yet.")

    func run() async throws {
        throw ToolExit.failure
    }
}
