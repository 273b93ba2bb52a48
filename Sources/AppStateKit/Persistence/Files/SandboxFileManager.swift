import Foundation

/// A ``FileManaging`` that maps every absolute path into a private root directory, so file
/// states in an isolated application never read or write the user's files.
///
/// `/home/me/.local/share/tool/list.json` becomes `<root>/home/me/.local/share/tool/list.json`.
///
/// Writes are atomic but not durable: a sandbox is deleted when its application goes away, so
/// nothing is `fsync`ed (neither files nor the directories created for them).
struct SandboxFileManager: FileManaging {
    /// The sandbox's files (see ``FileManaging/localFiles``).
    let files: LocalFiles
    let directory: SandboxDirectory

    /// - Parameter fileSystem: A test's, to prove a sandbox never calls `fsync`.
    init(directory: SandboxDirectory, isDurable: Bool = false, fileSystem: any FileSystem = POSIXFileSystem()) {
        files = LocalFiles(fileSystem: fileSystem, sandbox: directory, isDurable: isDurable)
        self.directory = directory
    }

    var root: String { directory.root }
    var fileSystem: any FileSystem { files.fileSystem }
    var isDurable: Bool { files.isDurable }

    func mapped(_ path: String) -> String {
        files.mapped(path)
    }

    func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: mapped(path))
    }
}
