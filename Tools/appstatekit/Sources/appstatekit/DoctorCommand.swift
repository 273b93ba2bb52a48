import ArgumentParser

/// `appstatekit doctor`. (Skeleton: its owner replaces this file.)
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "doctor", abstract: "Not written yet.")

    func run() async throws {
        throw ToolExit.failure
    }
}
