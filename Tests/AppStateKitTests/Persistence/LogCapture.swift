import AppStateKit

/// Runs `body` with a logger that records every error and debug message, and returns them
/// (debug messages arrive only while `Application.isLoggingEnabled`).
///
/// The override is task-local, so parallel tests don't see each other's messages.
func capturingLogs(_ body: () throws -> Void) rethrows -> [String] {
    let collected = MessageCollector()
    let logger = ApplicationLogger(debug: { collected.append($0) }, error: { collected.append($0) })
    try Application.withOverrides({ $0.override(\.logger, with: logger) }, operation: body)
    return collected.messages
}
