import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// Sets the modification time of the file at `path` (simulating a clock that hasn't moved past it).
private func setModificationTime(of path: String, seconds: Int, nanoseconds: Int) throws {
    let time = timespec(tv_sec: time_t(seconds), tv_nsec: nanoseconds)
    var times = [time, time]
    guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
        throw PersistenceError.system(errno, subject: path, operation: "utimensat")
    }
}

@Suite("File stamps", .isolatedApplication, .realFileSystem)
struct FileStampTests {
    /// An hour from now: later than anything the kernel's clock will give during the test.
    static let future = Int(Date().timeIntervalSince1970) + 3_600

    @Test("a new version is dated after the one it replaces even when the clock hasn't moved past it")
    func strictlyLaterModificationTime() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("value.json")
        try AtomicFileWriter.write(Data("1".utf8), to: path)
        try setModificationTime(of: path, seconds: Self.future, nanoseconds: 999_999_999)
        let before = try #require(try FileStamp.ofExistingFile(atPath: path))

        try AtomicFileWriter.write(Data("2".utf8), to: path)
        let after = try #require(try FileStamp.ofExistingFile(atPath: path))
        #expect(after.modifiedSeconds == Int64(Self.future + 1))
        #expect(after.modifiedNanoseconds == 0)
        #expect(after != before)

        try AtomicFileWriter.write(Data("3".utf8), to: path)
        let third = try #require(try FileStamp.ofExistingFile(atPath: path))
        #expect(third.modifiedSeconds == Int64(Self.future + 1))
        #expect(third.modifiedNanoseconds == 1)
    }

    @Test("a reader sees same-size writes made by another writer while the kernel's clock stands still")
    func readerSeesEveryVersion() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let reader = FileKeyValueStore(path: path)
        let writer = FileKeyValueStore(path: path)
        // Each write is followed by what a coarse kernel clock stuck at `future` would have done:
        // a file dated earlier gets `future`.
        try writer.writeObject(10, forKey: "k")
        try clampModificationTime(of: path)
        #expect(reader.object(forKey: "k") as? Int == 10)

        // ext4 gives the second replacement the first one's freed inode number; with the same size
        // and the same date its stamp would equal the one the reader cached.
        try writer.writeObject(11, forKey: "k")
        try clampModificationTime(of: path)
        try writer.writeObject(12, forKey: "k")
        try clampModificationTime(of: path)
        #expect(reader.object(forKey: "k") as? Int == 12)

        var file = Application().fileState(initial: 0, path: directory.path, filename: "n.json", isBase64Encoded: false)
        file.value = 10
        try clampModificationTime(of: file.path)
        #expect(file.value == 10)
        for next in [11, 12] {
            try Application().fileState(initial: 0, path: directory.path, filename: "n.json", isBase64Encoded: false).write(next)
            try clampModificationTime(of: file.path)
        }
        #expect(file.value == 12)
    }

    /// Dates the file `future` if it is dated earlier, as a kernel whose clock reads `future` would.
    private func clampModificationTime(of path: String) throws {
        let stamp = try #require(try FileStamp.ofExistingFile(atPath: path))
        if stamp.modifiedSeconds < Int64(Self.future) {
            try setModificationTime(of: path, seconds: Self.future, nanoseconds: 0)
        }
    }
}
