// The snippet of Documentation/ErrorHandling.md, verbatim, compiled and run, and the policy it
// describes. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import Testing

extension Application {
    var guideBadFile: FileState<Int> { fileState(initial: 0, filename: "../escape") }
}

@Suite("Error handling guide snippets", .isolatedApplication)
struct ErrorHandlingSnippets {
    @Test func catchingOneKind() throws {
        let tasks = [TodoItem(title: "Ship")]
        do {
            try Application.fileState(\.tasks).write(tasks)
        } catch let error as PersistenceError where error.kind == .diskFull {
            print("Free some space: \(error)")
        }
        #expect(try Application.fileState(\.tasks).read() == tasks)
    }

    @Test func dataErrorsAreThrownToCallersWhoAsk() {
        var bad = Application.fileState(\.guideBadFile)
        bad.value = 2   // reported, nothing written
        #expect(bad.value == 0)
        #expect(throws: PersistenceError.self) { try bad.write(1) }
        do {
            try bad.write(1)
        } catch let error as PersistenceError {
            #expect(error.kind == .invalidFilename)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
