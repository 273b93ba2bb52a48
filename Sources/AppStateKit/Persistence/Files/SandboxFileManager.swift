import Foundation

/// A ``FileManaging`` that maps every absolute path into a private root directory, so file
/// states in an isolated application never read or write the user's files.
///
/// `/home/me/.local/share/tool/list.json` becomes `<root>/home/me/.local/share/tool/list.json`.
///
/// Writes are atomic but not durable: a sandbox is deleted when its application goes away, so
/// nothing is `fsync`ed (neither files nor the directories created for them).
struct SandboxFileManager: AtomicFileManaging {
    let directory: SandboxDirectory
    /// Whether writes `fsync` (never, for a sandbox; a stored flag so tests can check it).
    let isDurable: Bool
    /// Where writes go: the real file system, unless a test passes one that counts or fails
    /// `fsync` to prove a sandbox never calls it.
    let fileSystem: any FileSystem

    init(directory: SandboxDirectory, isDurable: Bool = false, fileSystem: any FileSystem = POSIXFileSystem()) {
        self.directory = directory
        self.isDurable = isDurable
        self.fileSystem = fileSystem
    }

    var root: String { directory.root }

    func mapped(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : "/" + path
        return root + absolute
    }

    func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: mapped(path))
    }

    func contents(ofFile path: String) throws -> Data? {
        try AtomicFileWriter.read(mapped(path), in: fileSystem)
    }

    func writeAtomically(_ data: Data, toFile path: String) throws {
        _ = try writeAtomicallyWithStamp(data, toFile: path)
    }

    func writeAtomicallyWithStamp(_ data: Data, toFile path: String) throws -> FileStamp? {
        // Not durable: the writer creates missing directories without flushing them either.
        try AtomicFileWriter.write(data, to: mapped(path), durable: isDurable, in: fileSystem)
    }

    func stamp(ofFile path: String) -> FileStamp? {
        do {
            return try existingStamp(ofFile: path)
        } catch {
            return nil  // Documented by AtomicFileManaging: this form can't tell "unreadable" from "absent".
        }
    }

    func existingStamp(ofFile path: String) throws -> FileStamp? {
        try FileStamp.ofExistingFile(atPath: mapped(path), in: fileSystem)
    }

    func moveAside(_ path: String) throws -> String {
        try AtomicFileWriter.moveAside(mapped(path), in: fileSystem)
    }

    func removeFile(_ path: String) throws {
        try AtomicFileWriter.remove(mapped(path), in: fileSystem)
    }
}
