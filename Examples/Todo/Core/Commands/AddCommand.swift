import AppStateKit

/// `todo add <title>…`: appends a task.
enum AddCommand {
    static func run(_ arguments: [String]) throws {
        let title = arguments.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty else { throw TodoError.missingArgument(command: "add", argument: "a title") }
        let now = Application.dependency(\.todoClock).now()
        let ids = Application.dependency(\.todoIDs)
        let item = try TodoStore.modify { list -> TodoItem in
            let item = TodoItem(id: ids.nextID(for: list), title: title, createdAt: now)
            list.items.append(item)
            return item
        }
        Application.dependency(\.todoOutput).print("added \(item.id): \(item.title)")
    }
}
