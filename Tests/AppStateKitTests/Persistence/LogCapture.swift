import AppStateKit

/// Runs `body` with a logger that records every error message — and, with `includingDebug`,
/// every debug message — and returns them.
///
/// Debug messages arrive only while the process-wide `Application.isLoggingEnabled` flag is on,
/// which a serialized process-global test may switch while other suites run in parallel; so only
/// tests in that serialized suite ask for them, and everyone else's captures stay exact.
/// The override is task-local, so parallel tests don't see each other's messages.
func capturingLogs(includingDebug: Bool = false, _ body: () throws -> Void) rethrows -> [String] {
    let collected = MessageCollector()
    let logger = ApplicationLogger(
        debug: { if includingDebug { collected.append($0) } },
        error: { collected.append($0) }
    )
    try Application.withOverrides({ $0.override(\.logger, with: logger) }, operation: body)
    return collected.messages
}
