import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 11, item 8: a store or FileState file that is a symbolic link (the dotfiles pattern)
/// stays a link; writes replace the file it points to, atomically, in that file's directory.
@Suite("Symbolic links are written through", .isolatedApplication, .reportsAsDiagnostics)
struct SymbolicLinkTests {
    /// `<dir>/dotfiles/<name>` (the real file) and `<dir>/home/<name>` → `../dotfiles/<name>`.
    private func linked(_ name: String, in directory: TemporaryDirectory, contents: String) throws -> (link: String, target: String) {
        let target = directory.file("dotfiles/\(name)")
        let link = directory.file("home/\(name)")
        try FileManager.default.createDirectory(atPath: directory.file("dotfiles"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("home"), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../dotfiles/\(name)")
        return (link, target)
    }

    private func isSymbolicLink(_ path: String) throws -> Bool {
        try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType == .typeSymbolicLink
    }

    @Test("FileKeyValueStore: the link stays and its target holds every write")
    func store() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (link, target) = try linked("settings.json", in: directory, contents: #"{"theme": {"string": "dark"}}"#)
        let store = FileKeyValueStore(path: link)
        try store.writeObject(8080, forKey: "port")
        try store.writeObject(8081, forKey: "port")

        #expect(try isSymbolicLink(link))
        let other = FileKeyValueStore(path: target)
        #expect(other.object(forKey: "port") as? Int == 8081)
        #expect(other.object(forKey: "theme") as? String == "dark")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("dotfiles")).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test("FileState: the link stays, its target holds the value, and a corrupt target is moved aside beside it")
    func fileState() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (link, target) = try linked("notes.json", in: directory, contents: "not json")
        let files: any FileManaging = FileManager.default
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }) {
            var state = Application().fileState(initial: [String](), path: directory.file("home"), filename: "notes.json", isBase64Encoded: false)
            _ = capturingLogs { state.value = ["first"] }
            try state.write(["first", "second"])
            #expect(try state.read() == ["first", "second"])
        }
        #expect(try isSymbolicLink(link))
        #expect(try JSONDecoder().decode([String].self, from: Data(contentsOf: URL(fileURLWithPath: target))) == ["first", "second"])
        let besideTarget = try FileManager.default.contentsOfDirectory(atPath: directory.file("dotfiles"))
        let backups = besideTarget.filter { $0.hasPrefix("notes.json.corrupt-") }
        #expect(backups.count == 1)
        #expect(try String(contentsOfFile: directory.file("dotfiles/\(backups[0])"), encoding: .utf8) == "not json")
        // Beside the link: the link and the lock file holding the generation counter of its path.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("home")).sorted() == ["notes.json", "notes.json.lock"])
    }

    @Test("in memory: a chain of links is followed to the last target")
    func chain() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/real/defaults.json", text: "{}")
        files.createSymbolicLink(atPath: "/middle/defaults.json", withDestinationPath: "/real/defaults.json")
        files.createSymbolicLink(atPath: "/home/defaults.json", withDestinationPath: "../middle/defaults.json")
        try FileKeyValueStore(path: "/home/defaults.json", fileSystem: files).writeObject(1, forKey: "k")
        #expect(files.isSymbolicLink(atPath: "/home/defaults.json"))
        #expect(files.isSymbolicLink(atPath: "/middle/defaults.json"))
        #expect(FileKeyValueStore(path: "/real/defaults.json", fileSystem: files).object(forKey: "k") as? Int == 1)
    }
}
