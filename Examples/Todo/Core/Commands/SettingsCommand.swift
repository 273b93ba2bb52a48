import AppStateKit

/// `todo settings` shows the settings; `todo settings set <name> <value>` changes one.
enum SettingsCommand {
    static func run(_ arguments: [String]) throws {
        let output = Application.dependency(\.todoOutput)
        switch arguments.first {
        case nil, "show":
            output.print("sort: \(Application.storedState(\.todoSortOrder).value.rawValue)")
            output.print("show-done: \(Application.storedState(\.todoShowsDone).value)")
        case "set":
            guard arguments.count == 3 else { throw TodoError.missingArgument(command: "settings set", argument: "a name and a value") }
            try set(arguments[1], to: arguments[2])
            output.print("\(arguments[1]): \(arguments[2])")
        case let other?:
            throw TodoError.invalidArgument("unknown settings action '\(other)' (use 'show' or 'set')")
        }
    }

    private static func set(_ name: String, to value: String) throws {
        switch name {
        case "sort":
            guard let order = SortOrder(rawValue: value) else {
                throw TodoError.invalidArgument("sort must be one of: \(SortOrder.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            try write(order, to: \.todoSortOrder)
        case "show-done":
            guard let flag = Bool(value) else { throw TodoError.invalidArgument("show-done must be true or false") }
            try write(flag, to: \.todoShowsDone)
        default:
            throw TodoError.invalidArgument("unknown setting '\(name)' (settings: sort, show-done)")
        }
    }

    private static func write<Value: Codable & Sendable>(_ value: Value, to keyPath: KeyPath<Application, Application.StoredState<Value>>) throws {
        let state = Application.storedState(keyPath)
        do {
            try state.write(value)
        } catch {
            throw TodoError.writeFailed(path: state.storageKey, reason: "\(error)")
        }
    }
}
