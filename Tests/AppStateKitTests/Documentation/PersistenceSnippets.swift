// The snippets of Documentation/Persistence.md, verbatim, compiled and run. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

extension Application {
    var port: StoredState<Int> { storedState(initial: 8080, feature: "Server", id: "port") }
    var token: StoredState<String?> { storedState(feature: "Auth", id: "token") }       // nil until set
    var tasks: FileState<[TodoItem]> { fileState(initial: [], filename: "tasks.json", isBase64Encoded: false) }
}

// Compiled, never read: reading would open that UserDefaults suite in the user's home.
extension Application {
    var legacy: StoredState<Int> {
        storedState(initial: 0, id: "legacy", store: UserDefaultsStore(UserDefaults(suiteName: "com.example.old")!))
    }
}

@Suite("Persistence guide snippets", .isolatedApplication)
struct PersistenceSnippets {
    @Test func declareAndWrite() throws {
        var port = Application.storedState(\.port)
        port.value = 9090                          // durable when this returns
        try Application.fileState(\.tasks).write([TodoItem(title: "Ship")])  // throwing form

        #expect(Application.dependency(\.userDefaults).object(forKey: "Server/port") as? Int == 9090)
        #expect(try Application.fileState(\.tasks).read() == [TodoItem(title: "Ship")])
        #expect(Application.storedState(\.token).value == nil)
    }

    @Test func chooseTheDurability() {
        // Nothing is written: the promotion only chooses the store (of this isolated application).
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: "/var/lib/app/state.json", durability: .processCrashSafe))
        let store = Application.dependency(\.userDefaults) as? FileKeyValueStore
        #expect(store?.path == "/var/lib/app/state.json")
    }

    @Test func chooseTheLayout() {
        // Nothing is written: the promotion only chooses the store (of this isolated application).
        Application.promote(\.userDefaults, with: FileKeyValueStore(path: "/var/lib/app/state.json", layout: .appendOnlyLog))
        let store = Application.dependency(\.userDefaults) as? FileKeyValueStore
        #expect(store?.path == "/var/lib/app/state.json")  // StoreLogTests prove what the layout does
    }
}
