import AppStateKit

/// `todo clear [--all]`: deletes done tasks, or every task.
enum ClearCommand {
    static func run(_ arguments: [String]) throws {
        guard arguments.isEmpty || arguments == ["--all"] else {
            throw TodoError.invalidArgument("'clear' takes only --all")
        }
        let all = arguments == ["--all"]
        let count = try TodoStore.modify { list -> Int in
            let before = list.items.count
            list.items.removeAll { all || $0.isDone }
            return before - list.items.count
        }
        Application.dependency(\.todoOutput).print("cleared \(count) task(s)")
    }
}
