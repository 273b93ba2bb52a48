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
    /// The sandbox's directory.
    let directory: SandboxDirectory

    /// - Parameter fileSystem: The real file system, unless a test passes one that counts or
    ///   fails `fsync` to prove a sandbox never calls it.
    init(directory: SandboxDirectory, isDurable: Bool = false, fileSystem: any FileSystem = POSIXFileSystem()) {
        files = LocalFiles(fileSystem: fileSystem, sandbox: directory, isDurable: isDurable)
        self.directory = directory
    }

    /// The sandbox's directory.
    var root: String { directory.root }
    /// Where the sandbox's files live.
    var fileSystem: any FileSystem { files.fileSystem }
    /// Whether writes `fsync`.
    var isDurable: Bool { files.isDurable }

    /// Where the sandbox keeps `path`.
    func mapped(_ path: String) -> String {
        files.mapped(path)
    }

    func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: mapped(path))
    }
}
