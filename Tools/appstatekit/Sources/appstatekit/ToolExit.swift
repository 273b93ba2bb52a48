import ArgumentParser

/// The tool's documented exit statuses.
enum ToolExit {
    /// The command did what it was asked.
    static let success = ExitCode(0)
    /// The command failed: bad input, a store that can't be read or written, a connection refused.
    static let failure = ExitCode(1)
    /// `check` or `doctor` ran and found problems.
    static let problemsFound = ExitCode(2)
}
