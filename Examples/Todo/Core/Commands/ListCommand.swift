import AppStateKit

/// `todo list`: prints the tasks, sorted and filtered by the settings.
enum ListCommand {
    static func run(_ arguments: [String]) throws {
        guard arguments.isEmpty else { throw TodoError.invalidArgument("'list' takes no arguments") }
        let output = Application.dependency(\.todoOutput)
        var items = try TodoStore.read().items
        if !Application.storedState(\.todoShowsDone).value {
            items.removeAll(where: \.isDone)
        }
        switch Application.storedState(\.todoSortOrder).value {
        case .created: items.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        case .title: items.sort { $0.title.localizedLowercase < $1.title.localizedLowercase }
        }
        guard !items.isEmpty else {
            output.print("nothing to do")
            return
        }
        for item in items {
            output.print("\(String(item.id).leftPadded(to: 3)) [\(item.isDone ? "x" : " ")] \(item.title)")
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
