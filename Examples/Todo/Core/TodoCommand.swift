import AppStateKit
import Foundation

/// The `todo` command line: parses arguments, configures where data lives, and runs a command.
///
/// ```
/// todo add "Buy milk"      todo done 1      todo list
/// ```
public enum TodoCommand {
    /// Runs `todo` with `arguments` (without the program name) and returns the exit status.
    /// Output goes through the `\.todoOutput` dependency.
    public static func run(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        let output = Application.dependency(\.todoOutput)
        do {
            var arguments = arguments
            let verbose = extractFlag("--verbose", from: &arguments)
            try configureLocation(arguments: &arguments, environment: environment)
            guard let name = arguments.first else {
                output.print(usage)
                return 0
            }
            let rest = Array(arguments.dropFirst())
            switch name {
            case "add": try AddCommand.run(rest)
            case "list", "ls": try ListCommand.run(rest)
            case "done": try DoneCommand.run(rest)
            case "remove", "rm": try RemoveCommand.run(rest)
            case "clear": try ClearCommand.run(rest)
            case "settings": try SettingsCommand.run(rest)
            case "login": try LoginCommand.login(rest)
            case "logout": try LoginCommand.logout(rest)
            case "help", "--help", "-h": output.print(usage)
            default: throw TodoError.unknownCommand(name)
            }
            if verbose {
                let statistics = Application.state(\.todoStatistics).value
                output.printError("todo: read \(statistics.itemsRead) item(s), wrote \(statistics.itemsWritten) item(s)")
            }
            return 0
        } catch let error as TodoError {
            output.printError(error.description)
            return error.exitStatus
        } catch {
            output.printError("todo: \(error)")
            return 1
        }
    }

    /// `--file <path>` or `TODO_FILE` choose a project-local list; settings then live beside it.
    static func configureLocation(arguments: inout [String], environment: [String: String]) throws {
        var path = environment["TODO_FILE"]
        if let index = arguments.firstIndex(of: "--file") {
            guard index + 1 < arguments.count else { throw TodoError.missingArgument(command: "--file", argument: "a path") }
            path = arguments[index + 1]
            arguments.removeSubrange(index...(index + 1))
        }
        guard let path, !path.isEmpty else { return }
        let absolute = path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        let location = TodoLocation(directory: (absolute as NSString).deletingLastPathComponent, filename: (absolute as NSString).lastPathComponent)
        var state = Application.state(\.todoLocation)
        state.value = location
        if !Application.currentContext.isIsolated {
            Application.promote(\.userDefaults, with: FileKeyValueStore(path: location.path + ".settings.json"))
        }
    }

    private static func extractFlag(_ flag: String, from arguments: inout [String]) -> Bool {
        guard let index = arguments.firstIndex(of: flag) else { return false }
        arguments.remove(at: index)
        return true
    }

    static let usage = """
        usage: todo <command> [arguments] [--file <path>] [--verbose]

        commands:
          add <title>…              add a task
          list                      show tasks (honours the sort and show-done settings)
          done <id>…                mark tasks as done
          remove <id>…              delete tasks
          clear [--all]             delete done tasks (or every task with --all)
          settings                  show settings
          settings set sort created|title
          settings set show-done true|false
          login                     save an API token read from standard input
          login --status            say whether a token is set and where it comes from
          logout                    remove the saved token
          help                      show this help

        The list is kept in $XDG_DATA_HOME/todo/todo.json (~/.local/share/todo/todo.json);
        use --file <path> or TODO_FILE=<path> for a project-local list. The API token is kept in
        ~/.config/todo/secrets/Todo.apiToken (mode 0600, not encrypted); TODO_API_TOKEN or a
        systemd credential or /run/secrets file named Todo.apiToken provides it instead.
        """
}
