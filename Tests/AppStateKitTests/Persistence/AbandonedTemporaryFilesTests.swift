import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

@Suite("Abandoned temporary files", .isolatedApplication, .realFileSystem)
struct AbandonedTemporaryFilesTests {
    /// A process id that cannot exist (Linux caps ids far below it).
    static let deadProcess: Int32 = 2_147_483_646

    /// Dates the file at `path` back by an hour (more than ``AtomicFileWriter/abandonedAge``).
    static func age(_ path: String) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
    }

    @Test("the first write to a path removes old temporary files of dead writers and keeps everything else")
    func sweep() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("defaults.json")
        let abandoned = "defaults.json.tmp-\(Self.deadProcess)-17"
        let ours = "defaults.json.tmp-\(getpid())-18"
        // Issue 42, item 4: a young file of a process that doesn't exist here may be a live
        // writer's in another container sharing the volume.
        let otherContainer = "defaults.json.tmp-\(Self.deadProcess)-20"
        let unrelated = ["other.json.tmp-\(Self.deadProcess)-19", "defaults.json.tmp-notes", "defaults.json.corrupt-1", otherContainer]
        for name in [abandoned, ours] + unrelated {
            try Data("partial".utf8).write(to: URL(fileURLWithPath: directory.file(name)))
            if name != otherContainer { try Self.age(directory.file(name)) }
        }

        try FileKeyValueStore(path: target).writeObject(1, forKey: "k")

        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == Set([ours, "defaults.json", "defaults.json.lock"] + unrelated))
    }

    @Test("FileState writes sweep too")
    func fileStateSweep() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let abandoned = directory.file("list.json.tmp-\(Self.deadProcess)-1")
        try Data("partial".utf8).write(to: URL(fileURLWithPath: abandoned))
        try Self.age(abandoned)
        var state = Application().fileState(initial: [Int](), path: directory.path, filename: "list.json")
        state.value = [1]
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(state.value == [1])
    }
}
