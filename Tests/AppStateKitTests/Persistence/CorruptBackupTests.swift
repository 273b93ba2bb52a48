import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 11, item 10 (first half): backups of corrupt files never overwrite each other.
@Suite("Backups of corrupt files are unique", .isolatedApplication)
struct CorruptBackupTests {
    @Test("twenty files moved aside back to back (the same millisecond) keep twenty backups")
    func sameMillisecond() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("data.json")
        var backups: [String] = []
        for index in 0..<20 {
            try Data("version \(index)".utf8).write(to: URL(fileURLWithPath: path))
            backups.append(try LocalFiles.real.moveAside(path))
        }
        #expect(Set(backups).count == 20)
        for (index, backup) in backups.enumerated() {
            #expect(try String(contentsOfFile: backup, encoding: .utf8) == "version \(index)")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("an existing file with the backup's name is never replaced")
    func existingBackupKept() throws {
        let files = InMemoryFileSystem()
        files.createFile(atPath: "/data/a.json", text: "new damage")
        let first = try files.moveAside("/data/a.json")
        files.createFile(atPath: "/data/a.json", text: "newer damage")
        // Whatever the clock says, a name already taken is skipped.
        let second = try files.moveAside("/data/a.json")
        #expect(first != second)
        #expect(files.text(atPath: first) == "new damage")
        #expect(files.text(atPath: second) == "newer damage")
    }
}
