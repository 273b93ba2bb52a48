import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

extension Application {
    fileprivate var uncountedFile: FileState<Int> { fileState(initial: 0, filename: "uncounted-writer.json") }
}

/// A change stream on a file that another program replaces: such writers don't move the file's
/// generation counter, so reads trust their last check for up to a second; the stream's poll
/// finds the change with a `stat` and must deliver it, not the value reads kept.
@Suite("Change streams see writers that don't count", .isolatedApplication)
struct UncountedWriterStreamTests {
    @Test("a poll delivers a file's change by a program that doesn't count writes, though reads kept the value from before")
    func pollingSeesUncountedWriter() async throws {
        let clock = TestClock()
        // The file as the sandbox stores it, written with Foundation as an editor or a deploy
        // tool would: no lock and no generation counter, so reads keep trusting their last check.
        let path = Application.dependency(\.fileManager).atomicFiles.mapped(Application.fileState(\.uncountedFile).path)
        func writeLikeAnotherProgram(_ text: String) {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                Issue.record(error)
            }
        }
        try Application.fileState(\.uncountedFile).write(1)  // makes the directory, and the counter
        let stream = WaitClock.$current.withValue(WaitClock(clock)) {
            Task {
                var iterator = Application.values(of: \.uncountedFile, pollInterval: .seconds(1)).makeAsyncIterator()
                var values: [Int?] = []
                for _ in 0..<3 { values.append(await iterator.next()) }
                return values
            }
        }
        #expect(await eventually { clock.sleeperCount == 1 })  // delivered 1, waiting for a poll
        // A read checks the file just before another program replaces it, so reads trust the
        // value they kept (for a second of real time) when the poll finds the change.
        #expect(Application.fileState(\.uncountedFile).value == 1)
        writeLikeAnotherProgram("7")
        await clock.advance(by: .seconds(1))
        #expect(await eventually { clock.sleeperCount == 1 })  // delivered 7, waiting again
        #expect(Application.fileState(\.uncountedFile).value == 7)  // reads see it too
        writeLikeAnotherProgram("42")
        await clock.advance(by: .seconds(1))
        let values = await withDeadline { await stream.value }
        #expect(values == [1, 7, 42])
    }
}
