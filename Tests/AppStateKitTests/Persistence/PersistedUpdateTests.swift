import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var updatedStored: StoredState<Int> { storedState(initial: 0, feature: "PersistedUpdate", id: "counter") }
    var updatedOther: StoredState<Int> { storedState(initial: 0, feature: "PersistedUpdate", id: "other") }
    var updatedDouble: StoredState<Double> { storedState(initial: 0, feature: "PersistedUpdate", id: "double") }
    var updatedFile: FileState<[Int]> {
        fileState(initial: [], path: "/AppStateKit-update-tests", filename: "list.json", isBase64Encoded: false)
    }

    func counter(in store: FileKeyValueStore) -> StoredState<Int> {
        storedState(initial: 0, feature: "PersistedUpdate", id: "counter", store: store)
    }
}

/// Runs `count` calls of `body` on each of `tasks` concurrent tasks.
private func concurrently(tasks: Int, count: Int, _ body: @escaping @Sendable () -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                for _ in 0..<count { body() }
            }
        }
    }
}

@Suite("update on stored and file states", .isolatedApplication)
struct PersistedUpdateTests {
    @Test("Application.update on a StoredState loses no increment across threads (in-memory store)")
    func storedAcrossThreads() async {
        await concurrently(tasks: 8, count: 200) {
            Application.update(\.updatedStored) { $0 += 1 }
        }
        #expect(Application.storedState(\.updatedStored).value == 1_600)
    }

    @Test("update on a StoredState in a FileKeyValueStore loses no increment across threads")
    func storedInFileStoreAcrossThreads() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = FileKeyValueStore(path: directory.file("defaults.json"), durability: .processCrashSafe)
        let counter = Application().counter(in: store)
        await concurrently(tasks: 4, count: 50) {
            var handle = counter
            handle.modify { $0 += 1 }
        }
        #expect(try counter.read() == 200)
        #expect(FileKeyValueStore(path: store.path).object(forKey: "PersistedUpdate/counter") as? Int == 200)
    }

    @Test("Application.update on a FileState loses no change across threads")
    func fileAcrossThreads() async {
        await concurrently(tasks: 4, count: 50) {
            Application.update(\.updatedFile) { $0.append($0.count) }
        }
        #expect(Application.fileState(\.updatedFile).value == Array(0..<200))
    }

    @Test("update and in-place mutations (value += 1) of the same entries, mixed across threads, lose nothing")
    func mixedWithInPlaceMutations() async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    for _ in 0..<50 {
                        if index.isMultiple(of: 2) {
                            Application.update(\.updatedStored) { $0 += 1 }
                            Application.update(\.updatedFile) { $0.append(0) }
                        } else {
                            var stored = Application.storedState(\.updatedStored)
                            stored.value += 1
                            var file = Application.fileState(\.updatedFile)
                            file.value.append(0)
                        }
                    }
                }
            }
        }
        #expect(Application.storedState(\.updatedStored).value == 300)
        #expect(Application.fileState(\.updatedFile).value.count == 300)
    }

    @Test("update returns the body's result; the body may use other entries, even write them")
    func bodyMayUseOtherEntries() throws {
        let result = Application.update(\.updatedStored) { value -> Int in
            var other = Application.storedState(\.updatedOther)
            other.value = Application.storedState(\.updatedOther).value + 10
            value += 1
            return value * 100
        }
        #expect(result == 100)
        #expect(Application.storedState(\.updatedOther).value == 10)
        let files = try Application.fileState(\.updatedFile).update { list -> Int in
            list.append(Application.storedState(\.updatedStored).value)
            return list.count
        }
        #expect(files == 1)
        #expect(Application.fileState(\.updatedFile).value == [1])
    }

    @Test("update of a stored NaN finishes (NaN never equals itself)")
    func storedNaN() throws {
        var state = Application.storedState(\.updatedDouble)
        state.value = .nan
        try state.update { $0 = 1 }
        #expect(state.value == 1)
    }

    @Test("a body that throws changes nothing")
    func throwingBody() {
        struct Refused: Error {}
        Application.update(\.updatedStored) { $0 = 5 }
        #expect(throws: Refused.self) {
            try Application.update(\.updatedStored) { value in
                value = 99
                throw Refused()
            }
        }
        #expect(throws: Refused.self) {
            try Application.update(\.updatedFile) { list in
                list = [99]
                throw Refused()
            }
        }
        #expect(Application.storedState(\.updatedStored).value == 5)
        #expect(Application.fileState(\.updatedFile).value == [])
    }

    @Test("the throwing update of a handle surfaces a corrupt file and leaves it; Application.update reports it, and neither writes")
    func corruptFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let collected = MessageCollector()
        let application = Application {
            $0.logger.entry(in: $0)?.promote(to: ApplicationLogger(debug: { _ in }, error: { collected.append($0) }))
        }
        let path = directory.file("broken.json")
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        var file = application.fileState(initial: [Int](), path: directory.path, filename: "broken.json")
        #expect(throws: PersistenceError.self) {
            try file.update { $0.append(1) }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("{not json".utf8))
        file.modify { $0.append(1) }
        #expect(file.value == [])
        #expect(collected.messages.contains { $0.contains(path) && $0.contains("corrupt") && $0.contains("the change was not written") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("{not json".utf8), "issue 34 item 7: the file is kept")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("broken.json.corrupt-") }
        #expect(kept.isEmpty)
    }
}

@Suite("update across processes", .isolatedApplication, .serialized)
struct PersistedUpdateProcessTests {
    /// Starts `processes` children running `arguments` at once and waits for all of them.
    private func runConcurrently(_ processes: Int, _ arguments: [String]) throws -> [String] {
        let children = try (0..<processes).map { _ in try PersistenceChild.start(arguments) }
        return children.map { child in
            let output = child.read { String(decoding: $0, as: UTF8.self).contains("\n") }
            child.waitForExit()
            return String(decoding: output, as: UTF8.self)
        }
    }

    @Test("3 processes × 200 StoredState updates on one FileKeyValueStore count exactly 600")
    func storedAcrossProcesses() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let outputs = try runConcurrently(3, ["store-increment", path, "200"])
        #expect(outputs.allSatisfy { $0 == "done\n" }, "\(outputs)")
        #expect(FileKeyValueStore(path: path).object(forKey: "Child/counter") as? Int == 600)
    }

    @Test("3 processes × 60 FileState updates on one file count exactly 180")
    func fileAcrossProcesses() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let outputs = try runConcurrently(3, ["file-increment", directory.path, "counter.json", "60"])
        #expect(outputs.allSatisfy { $0 == "done\n" }, "\(outputs)")
        let payload: ChildPayload = try FileManager.default.in(path: directory.path, filename: "counter.json")
        #expect(payload.sequence == 180)
    }
}

/// The child's `Payload`.
private struct ChildPayload: Codable {
    var sequence: Int
}
