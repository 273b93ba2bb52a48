import AppStateKitCore
import Foundation

/// A ``FileManaging`` that maps every absolute path into a private root directory
/// (`/a/b.json` becomes `<root>/a/b.json`), so file states in an isolated application never
/// touch the user's files. Writes are atomic but not `fsync`ed: a sandbox dies with its application.
package struct SandboxFileManager: FileManaging {
    /// The sandbox's files (see ``FileManaging/localFiles``).
    let files: LocalFiles
    package let directory: SandboxDirectory

    /// - Parameter fileSystem: A test's, to prove a sandbox never calls `fsync`.
    package init(directory: SandboxDirectory, isDurable: Bool = false, fileSystem: any FileSystem = POSIXFileSystem()) {
        files = LocalFiles(fileSystem: fileSystem, sandbox: directory, isDurable: isDurable)
        self.directory = directory
    }

    package var root: String { directory.root }
    package var fileSystem: any FileSystem { files.fileSystem }
    package var isDurable: Bool { files.isDurable }

    func mapped(_ path: String) -> String {
        files.mapped(path)
    }

    package func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: mapped(path))
    }
}
