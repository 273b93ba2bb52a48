// The snippets of Documentation/Persistence.md's "Atomic changes: update" and "The storage name",
// verbatim. The update snippet runs; the storage-name ones are only compiled: the name is
// process-wide and fixed once a default location is used, so StorageNameTests runs it in child
// processes.
import AppStateKit
import AppStateKitTesting
import Testing

extension Application {
    var launchCount: StoredState<Int> { storedState(initial: 0, feature: "App", id: "launchCount") }
    var todoList: FileState<[String]> { fileState(initial: [], filename: "todo.json", isBase64Encoded: false) }
}

// A server's entry point (marked @main in the server's executable target)
enum InventoryServer {
    static func main() async throws {
        Application.storageName = "inventory-server"
        // … start serving; StoredState and FileState now live under "inventory-server"
    }
}

/// A command-line tool's main.swift; compiled, never run.
private func commandLineToolMain() {
    // A command-line tool (main.swift)
    Application.storageName = "todo"
    var tasks = Application.fileState(\.todoList)   // ~/.local/share/todo/todo.json
    tasks.value = []
}

@Suite("Persistence guide: update", .isolatedApplication)
struct PersistenceUpdateSnippets {
    @Test func updateSnippet() throws {
        Application.update(\.launchCount) { $0 += 1 }
        Application.update(\.todoList) { $0.append("Buy milk") }
        let remaining = try Application.fileState(\.todoList).update { list -> Int in   // throwing form
            list.removeFirst()
            return list.count
        }
        #expect(Application.storedState(\.launchCount).value == 1)
        #expect(remaining == 0)
        #expect(Application.fileState(\.todoList).value == [])
        _ = (InventoryServer.main, commandLineToolMain)
    }
}
