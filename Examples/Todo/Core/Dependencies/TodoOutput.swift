import Foundation

/// Where `todo` writes: results to standard output, problems to standard error.
public protocol TodoOutput: Sendable {
    func print(_ line: String)
    func printError(_ line: String)
}

/// The process's standard output and standard error.
public struct StandardOutput: TodoOutput {
    public init() {}
    public func print(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
    public func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
