import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// The greeting of issue 34's item 7.
private struct Greeting: Codable, Sendable, Equatable {
    var name: String
    var greetingCount: Int
}

extension Application {
    fileprivate var unreadableGreeting: FileState<Greeting> {
        fileState(initial: Greeting(name: "World", greetingCount: 1), path: "/config", filename: "greeting.json", isBase64Encoded: false)
    }
}

/// Issue 34, item 7: a change that starts from the file's value (in place, `update`) is refused
/// when the file does not decode, as StoredState refuses it; an assignment or `reset()` replaces
/// the file and moves the bad one aside.
@Suite("Changes of a FileState whose file does not decode", .isolatedApplication)
struct UnreadableFileChangeTests {
    static let path = "/config/greeting.json"
    /// The file of the issue, edited by hand: `name` is a number.
    static let content = #"{"name": 5, "greetingCount": 3}"#
    static let refused = "; the change was not written, so the stored value is kept (assign a value or reset() to replace it)"

    /// An in-memory file system holding the bad file, as the application's `\.fileManager`.
    private func withBadFile(_ body: (InMemoryFileSystem) throws -> Void) throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: Self.path, text: Self.content)
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) { try body(files) }
    }

    /// The sibling a bad file was moved to, if any.
    private func movedAside(in files: InMemoryFileSystem) -> [String] {
        files.contentsOfDirectory(atPath: "/config").filter { $0.hasPrefix("greeting.json.corrupt-") }
    }

    @Test("a change in place (value.name = \"Zed\") writes nothing and says so")
    func inPlaceIsRefused() throws {
        try withBadFile { files in
            var greeting = Application.fileState(\.unreadableGreeting)
            let logs = capturingLogs { greeting.value.name = "Zed" }
            #expect(files.text(atPath: Self.path) == Self.content)
            #expect(movedAside(in: files).isEmpty)
            #expect(logs.count == 1)
            #expect(logs.first?.hasPrefix("AppStateKit: corrupt data for \(Self.path): the JSON does not decode as Greeting") == true)
            #expect(logs.first?.hasSuffix(Self.refused) == true)
        }
    }

    @Test("Application.update and modify run on the initial value and write nothing")
    func updateIsRefused() throws {
        try withBadFile { files in
            let logs = capturingLogs {
                Application.update(\.unreadableGreeting) { $0.name = "Zed" }
                var handle = Application.fileState(\.unreadableGreeting)
                let seen = handle.modify { greeting in
                    greeting.name = "Zed"
                    return greeting.greetingCount
                }
                #expect(seen == 1)  // the change ran on the initial value
            }
            #expect(files.text(atPath: Self.path) == Self.content)
            #expect(movedAside(in: files).isEmpty)
            #expect(logs.count == 1)  // the same message twice in a row is reported once
            #expect(logs.first?.hasSuffix(Self.refused) == true)
        }
    }

    @Test("the throwing update throws the reason and never runs the change")
    func throwingUpdateThrows() throws {
        try withBadFile { files in
            var ran = false
            #expect {
                try Application.fileState(\.unreadableGreeting).update { _ in ran = true }
            } throws: { error in
                let error = try #require(error as? PersistenceError)
                return error.kind == .corruptData && error.subject == Self.path && error.detail.hasSuffix(Self.refused)
            }
            #expect(!ran)
            #expect(files.text(atPath: Self.path) == Self.content)
        }
    }

    @Test("an assignment replaces the file and moves the bad one aside; messages come in the order things happened")
    func assignmentReplaces() throws {
        try withBadFile { files in
            var greeting = Application.fileState(\.unreadableGreeting)
            let logs = capturingLogs {
                _ = greeting.value
                greeting.value.name = "Zed"
                greeting.value = Greeting(name: "Zed", greetingCount: 3)
            }
            let replaced = try greeting.read()
            #expect(replaced == Greeting(name: "Zed", greetingCount: 3))
            let aside = movedAside(in: files)
            #expect(aside.count == 1)
            #expect(aside.first.flatMap { files.text(atPath: "/config/" + $0) } == Self.content)
            #expect(logs.count == 3)
            guard logs.count == 3 else { return }
            #expect(logs[0].hasPrefix("AppStateKit: corrupt data for \(Self.path)") && !logs[0].hasSuffix(Self.refused))
            #expect(logs[1].hasSuffix(Self.refused))
            #expect(logs[2].hasSuffix("the file was moved to /config/\(aside.first ?? "")"))
            // Changes work again from there.
            greeting.value.greetingCount += 1
            let changed = try greeting.read()
            #expect(changed == Greeting(name: "Zed", greetingCount: 4))
        }
    }

    @Test("reset() removes the file, moving the bad one aside")
    func resetReplaces() throws {
        try withBadFile { files in
            let logs = capturingLogs { Application.reset(fileState: \.unreadableGreeting) }
            #expect(!files.itemExists(atPath: Self.path))
            let aside = movedAside(in: files)
            #expect(aside.count == 1)
            #expect(aside.first.flatMap { files.text(atPath: "/config/" + $0) } == Self.content)
            #expect(logs.count == 1)
            #expect(Application.fileState(\.unreadableGreeting).value == Greeting(name: "World", greetingCount: 1))
        }
    }
}
