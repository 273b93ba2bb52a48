import AppStateKit

/// `todo done <id>…`: marks tasks as done. Unknown ids change nothing.
enum DoneCommand {
    static func run(_ arguments: [String]) throws {
        let ids = try IDArguments.parse(arguments, command: "done")
        let now = Application.dependency(\.todoClock).now()
        let titles = try TodoStore.modify { list -> [String] in
            for id in ids where !list.items.contains(where: { $0.id == id }) { throw TodoError.unknownID(id) }
            var titles: [String] = []
            for index in list.items.indices where ids.contains(list.items[index].id) {
                if list.items[index].completedAt == nil { list.items[index].completedAt = now }
                titles.append(list.items[index].title)
            }
            return titles
        }
        for title in titles { Application.dependency(\.todoOutput).print("done: \(title)") }
    }
}
