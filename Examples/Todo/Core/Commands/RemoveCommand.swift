import AppStateKit

/// `todo remove <id>…`: deletes tasks. Unknown ids change nothing.
enum RemoveCommand {
    static func run(_ arguments: [String]) throws {
        let ids = try IDArguments.parse(arguments, command: "remove")
        let removed = try TodoStore.modify { list -> [TodoItem] in
            for id in ids where !list.items.contains(where: { $0.id == id }) { throw TodoError.unknownID(id) }
            let removed = list.items.filter { ids.contains($0.id) }
            list.items.removeAll { ids.contains($0.id) }
            return removed
        }
        for item in removed { Application.dependency(\.todoOutput).print("removed \(item.id): \(item.title)") }
    }
}
