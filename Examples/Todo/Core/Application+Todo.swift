import AppStateKit
import Foundation

/// Where this run keeps its data, decided from `--file` / `TODO_FILE` before any command runs.
public struct TodoLocation: Sendable, Equatable {
    public var directory: String
    public var filename: String

    public init(directory: String, filename: String) {
        self.directory = directory
        self.filename = filename
    }

    /// The default: `todo.json` in `FileManager.defaultFileStatePath`.
    public static var standard: TodoLocation {
        TodoLocation(directory: FileManager.defaultFileStatePath, filename: "todo.json")
    }

    public var path: String { (directory as NSString).appendingPathComponent(filename) }
}

/// What this run did, printed by `--verbose`.
public struct RunStatistics: Sendable, Equatable {
    public var itemsRead = 0
    public var itemsWritten = 0
}

extension Application {
    // Dependencies
    public var todoClock: Dependency<any TodoClock> { dependency(SystemClock(), feature: "Todo", id: "clock") }
    public var todoIDs: Dependency<any IDGenerator> { dependency(SequentialIDGenerator(), feature: "Todo", id: "ids") }
    public var todoOutput: Dependency<any TodoOutput> { dependency(StandardOutput(), feature: "Todo", id: "output") }
    public var todoInput: Dependency<any TodoInput> { dependency(StandardInput(), feature: "Todo", id: "input") }

    // Per-run state
    public var todoLocation: State<TodoLocation> { state(initial: .standard, feature: "Todo", id: "location") }
    public var todoStatistics: State<RunStatistics> { state(initial: RunStatistics(), feature: "Todo", id: "statistics") }

    // Persisted
    /// The list, human-readable JSON at the run's location.
    public var todoList: FileState<TodoList> {
        let location = Application.state(\.todoLocation).value
        return fileState(initial: TodoList(), path: location.directory, filename: location.filename, isBase64Encoded: false)
    }

    /// Settings, in the `\.userDefaults` store.
    public var todoSortOrder: StoredState<SortOrder> { storedState(initial: .created, feature: "Todo", id: "sort") }
    public var todoShowsDone: StoredState<Bool> { storedState(initial: true, feature: "Todo", id: "showDone") }

    /// The optional API token `todo login` keeps: keychain key `Todo.apiToken`, so also
    /// `TODO_API_TOKEN`, `$CREDENTIALS_DIRECTORY/Todo.apiToken` or `/run/secrets/Todo.apiToken`.
    public var todoAPIToken: SecureState { secureState(feature: "Todo", id: "apiToken") }
}
