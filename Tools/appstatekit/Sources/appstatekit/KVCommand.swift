import ArgumentParser

/// `appstatekit kv`. (Skeleton: its owner replaces this file.)
struct KVCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "kv", abstract: "Not written yet.")

    func run() async throws {
        throw ToolExit.failure
    }
}
