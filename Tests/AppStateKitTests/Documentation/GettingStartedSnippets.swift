// The Swift snippets of Documentation/GettingStarted.md, verbatim, compiled and run. Keep the two
// in step. (Its Package.swift is built in a scratch package by .ci/steps/26-doc-manifests.sh.)
import AppStateKit
import AppStateKitTesting
import Testing

extension Application {
    /// In memory, created on first access.
    var launches: State<Int> { state(initial: 0) }
    /// Created once, on first use; replaceable in tests.
    var greeter: Dependency<Greeter> { dependency(Greeter(greeting: "Hello")) }
    /// Persisted in a durable key-value store.
    var userName: StoredState<String> { storedState(initial: "friend", id: "userName") }
    /// Persisted in its own JSON file.
    var history: FileState<[String]> { fileState(initial: [], filename: "history.json", isBase64Encoded: false) }
}

struct Greeter: Sendable {
    let greeting: String
    func greet(_ name: String) -> String { "\(greeting), \(name)!" }
}

struct Session {
    @AppState(\.launches) var launches
    @AppDependency(\.greeter) var greeter
    @StoredState(\.userName) var userName
    @FileState(\.history) var history
}

@Suite("Getting started snippets", .isolatedApplication)
struct GettingStartedSnippets {
    @Test func useItFromAnywhere() throws {
        Application.update(\.launches) { $0 += 1 }          // atomic, any thread or task
        let greeter = Application.dependency(\.greeter)
        let name = Application.storedState(\.userName).value

        var history = Application.fileState(\.history)
        history.value.append(greeter.greet(name))            // written atomically to disk

        #expect(try Application.fileState(\.history).read() == ["Hello, friend!"])
        let session = Session()
        #expect(session.launches == 1)
        #expect(session.history == ["Hello, friend!"])
        #expect(session.userName == "friend")
        #expect(session.greeter.greet("Ada") == "Hello, Ada!")
    }
}

// "Test it", as the guide writes it:

@Test(.isolatedApplication, .overriding(\.greeter, with: Greeter(greeting: "Hi")))
func greets() {
    #expect(Application.dependency(\.greeter).greet("Ada") == "Hi, Ada!")
    #expect(Application.state(\.launches).value == 0)   // fresh for this test
}

