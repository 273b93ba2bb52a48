import ArgumentParser

/// `appstatekit doctor`. (Local checks being written; calls `postgresFindings` for PostgreSQL's.)
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "doctor", abstract: "Check a deployment's stores, secrets and database.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var postgres: DoctorPostgresOptions

    func run() async throws {
        let findings = await postgresFindings(postgres)
        if findings.contains(where: { $0.severity == .problem }) { throw ToolExit.problemsFound }
    }
}
