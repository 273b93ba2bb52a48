// The snippets Persistence.md gained for `update` and the storage name, compiled and run
// (the storage-name ones are compiled only: setting the name is process-wide and fixed once a
// default location is used, so StorageNameTests runs it in child processes).
import AppStateKit
import AppStateKitTesting
import Testing

extension Application {
    var launchCount: StoredState<Int> { storedState(initial: 0, feature: "App", id: "launchCount") }
    var todoList: FileState<[String]> { fileState(initial: [], filename: "todo.json", isBase64Encoded: false) }
}

// A server
enum InventoryServer {
    static func main() async throws {
        Application.storageName = "inventory-server"
        // … start serving; StoredState and FileState now live under "inventory-server"
    }
}

/// A command-line tool's main.swift.
private func commandLineToolMain() {
    Application.storageName = "todo"
    var tasks = Application.fileState(\.todoList)   // ~/.local/share/todo/todo.json
    _ = tasks.value
    tasks.value = []
}

@Suite("Persistence guide: update", .isolatedApplication)
struct PersistenceUpdateSnippets {
    @Test func updateSnippet() throws {
        Application.update(\.launchCount) { $0 += 1 }
        Application.update(\.todoList) { $0.append("Buy milk") }
        Application.update(\.todoList) { $0.append("Ship") }
        let remaining = try Application.fileState(\.todoList).update { list -> Int in   // throwing form
            list.removeFirst()
            return list.count
        }
        #expect(Application.storedState(\.launchCount).value == 1)
        #expect(remaining == 1)
        #expect(Application.fileState(\.todoList).value == ["Ship"])
        _ = (InventoryServer.main, commandLineToolMain)
    }
}
