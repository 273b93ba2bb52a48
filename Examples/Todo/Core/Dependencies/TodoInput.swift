/// Where `todo` reads what the user types (`todo login` reads the token from here, so it never
/// appears in the command line, the shell history or `ps`).
public protocol TodoInput: Sendable {
    /// The next line, without its newline, or `nil` at the end of the input.
    func readLine() -> String?
}

/// The process's standard input.
public struct StandardInput: TodoInput {
    public init() {}
    public func readLine() -> String? {
        Swift.readLine(strippingNewline: true)
    }
}
