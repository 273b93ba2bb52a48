import AppStateKit
import AppStateKitTesting
import Foundation
import Testing
@testable import TodoCore

@Suite("todo commands", .isolatedApplication)
struct TodoCommandTests {
    let output = RecordingOutput()

    func run(_ arguments: String...) -> Int32 {
        Application.withOverrides {
            $0.override(\.todoOutput, with: output)
            $0.override(\.todoClock, with: FixedClock(date: Date(timeIntervalSince1970: 1_700_000_000)))
        } operation: {
            TodoCommand.run(arguments: arguments, environment: [:])
        }
    }

    init() {
        // Inside the isolated application the list lives in its temporary directory.
        var location = Application.state(\.todoLocation)
        location.value = TodoLocation(directory: NSTemporaryDirectory() + "todo-\(UUID().uuidString)", filename: "todo.json")
    }

    @Test func addListDoneRemoveClear() throws {
        #expect(run("add", "Buy", "milk") == 0)
        #expect(run("add", "Write docs") == 0)
        #expect(run("done", "1") == 0)
        #expect(run("list") == 0)
        #expect(output.standardOutput == [
            "added 1: Buy milk", "added 2: Write docs", "done: Buy milk",
            "  1 [x] Buy milk", "  2 [ ] Write docs",
        ])
        let stored = try Application.fileState(\.todoList).read()
        #expect(stored.items.map(\.title) == ["Buy milk", "Write docs"])
        #expect(stored.items[0].completedAt == Date(timeIntervalSince1970: 1_700_000_000))

        #expect(run("remove", "2") == 0)
        #expect(run("clear") == 0)
        #expect(try Application.fileState(\.todoList).read().items.isEmpty)
        #expect(output.standardOutput.suffix(2) == ["removed 2: Write docs", "cleared 1 task(s)"])
    }

    @Test func settingsChangeListing() {
        _ = run("add", "b task")
        _ = run("add", "a task")
        _ = run("done", "1")
        #expect(run("settings", "set", "sort", "title") == 0)
        #expect(run("settings", "set", "show-done", "false") == 0)
        #expect(run("list") == 0)
        #expect(output.standardOutput.last == "  2 [ ] a task")
        #expect(Application.storedState(\.todoSortOrder).value == .title)
        #expect(run("settings") == 0)
        #expect(output.standardOutput.suffix(2) == ["sort: title", "show-done: false"])
    }

    @Test("bad input: clear message on stderr and a non-zero status", arguments: [
        (["frob"], Int32(2), "todo: unknown command 'frob'. Run 'todo help' for usage."),
        (["add"], Int32(2), "todo: 'add' needs a title. Run 'todo help' for usage."),
        (["done"], Int32(2), "todo: 'done' needs at least one id. Run 'todo help' for usage."),
        (["done", "x"], Int32(2), "todo: 'x' is not a task id (ids are positive numbers)"),
        (["remove", "42"], Int32(1), "todo: no task with id 42. Run 'todo list' to see the ids."),
        (["settings", "set", "sort", "size"], Int32(2), "todo: sort must be one of: created, title"),
    ])
    func badInput(arguments: [String], status: Int32, message: String) {
        let result = Application.withOverrides { $0.override(\.todoOutput, with: output) } operation: {
            TodoCommand.run(arguments: arguments, environment: [:])
        }
        #expect(result == status)
        #expect(output.standardError == [message])
        #expect(output.standardOutput.isEmpty)
    }

    @Test func unreadableFileIsKept() throws {
        let path = Application.fileState(\.todoList).path
        let (directory, name) = ((path as NSString).deletingLastPathComponent, (path as NSString).lastPathComponent)
        // Through the (isolated) application's file manager: JSON, but not a todo list.
        let files = Application.dependency(\.fileManager)
        try files.out("not a todo list", path: directory, filename: name, base64Encoded: false)
        #expect(run("add", "x") == 1)
        #expect(output.standardError.first?.hasPrefix("todo: cannot read \(path):") == true)
        let kept: String = try files.in(path: directory, filename: name)
        #expect(kept == "not a todo list")
    }

    @Test func help() {
        #expect(run("help") == 0)
        #expect(output.standardOutput.first?.hasPrefix("usage: todo <command>") == true)
    }
}
