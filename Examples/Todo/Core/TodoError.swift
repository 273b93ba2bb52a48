/// Everything that makes `todo` exit with a non-zero status, with the message it prints.
public enum TodoError: Error, Equatable, CustomStringConvertible {
    case unknownCommand(String)
    case missingArgument(command: String, argument: String)
    case invalidArgument(String)
    case unknownID(Int)
    case unreadableData(path: String, reason: String)
    case writeFailed(path: String, reason: String)
    /// The API token can't be read or written; the message names the key and the source, never
    /// the token.
    case secret(String)

    /// 2 for usage errors, 1 for everything else.
    public var exitStatus: Int32 {
        switch self {
        case .unknownCommand, .missingArgument, .invalidArgument: 2
        case .unknownID, .unreadableData, .writeFailed, .secret: 1
        }
    }

    public var description: String {
        switch self {
        case let .unknownCommand(name):
            "todo: unknown command '\(name)'. Run 'todo help' for usage."
        case let .missingArgument(command, argument):
            "todo: '\(command)' needs \(argument). Run 'todo help' for usage."
        case let .invalidArgument(message):
            "todo: \(message)"
        case let .unknownID(id):
            "todo: no task with id \(id). Run 'todo list' to see the ids."
        case let .unreadableData(path, reason):
            "todo: cannot read \(path): \(reason). The file was left untouched; fix or move it, then try again."
        case let .writeFailed(path, reason):
            "todo: cannot save \(path): \(reason)"
        case let .secret(message):
            "todo: \(message)"
        }
    }
}
