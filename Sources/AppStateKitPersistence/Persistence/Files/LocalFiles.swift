import AppStateKitCore
import Foundation

/// The files of a file system AppStateKit can examine itself — the real one, an isolated
/// application's sandbox in it, or `AppStateKitTesting`'s `InMemoryFileSystem` — with the
/// operations ``Application/FileState`` performs on them (see ``FileManaging/localFiles``).
package struct LocalFiles: Sendable {
    let fileSystem: any FileSystem
    /// The directory every absolute path is mapped into (an isolated application's sandbox;
    /// held, so it lives while these files are in use), or `nil` for the paths as given.
    let sandbox: SandboxDirectory?
    /// Whether writes `fsync` (a sandbox's don't: it is deleted with its application).
    let isDurable: Bool

    static let real = LocalFiles(fileSystem: POSIXFileSystem(), sandbox: nil, isDurable: true)

    /// Which generation counters writes through these files move (see ``FileFreshness``):
    /// the real file system's lock files, or a sandbox's; `nil` for a file system in memory.
    let counterOwner: ObjectIdentifier?

    init(fileSystem: any FileSystem, sandbox: SandboxDirectory?, isDurable: Bool) {
        self.fileSystem = fileSystem
        self.sandbox = sandbox
        self.isDurable = isDurable
        counterOwner = switch (fileSystem is POSIXFileSystem, sandbox) {
        case (false, _): nil
        case let (true, sandbox?): ObjectIdentifier(sandbox)
        case (true, nil): ObjectIdentifier(POSIXFileSystem.self)
        }
    }

    /// The path these files keep `path` at: inside the sandbox, when there is one.
    package func mapped(_ path: String) -> String {
        guard let sandbox else { return path }
        return sandbox.root + (path.hasPrefix("/") ? path : "/" + path)
    }

    package func contents(ofFile path: String) throws -> Data? {
        try AtomicFileWriter.read(mapped(path), limit: FileManager.maximumFileStateSize, in: fileSystem)
    }

    @discardableResult
    package func writeAtomically(_ data: Data, toFile path: String) throws -> FileStamp? {
        let limit = FileManager.maximumFileStateSize
        if data.count > limit {
            // A file no read would accept: refused before anything is written.
            throw PersistenceError(
                .encodingFailed, subject: mapped(path), detail: "the file would be \(data.count) bytes, more than the limit of \(limit)"
            )
        }
        return try AtomicFileWriter.write(data, to: mapped(path), durable: isDurable, reportingLateFlush: true, in: fileSystem)
    }

    /// The stamp of the file at `path`, `nil` only when there is none.
    package func existingStamp(ofFile path: String) throws -> FileStamp? {
        try FileStamp.ofExistingFile(atPath: mapped(path), in: fileSystem)
    }

    package func moveAside(_ path: String) throws -> String {
        try AtomicFileWriter.moveAside(mapped(path), in: fileSystem)
    }

    package func removeFile(_ path: String) throws {
        try AtomicFileWriter.remove(mapped(path), durable: isDurable, in: fileSystem)
    }

    /// Runs `body` holding the `flock` of `<file>.lock` every process takes to update `path`:
    /// beside the file a link points to, so processes using the link and its target exclude
    /// each other.
    func withExclusiveLock<Result>(_ path: String, _ body: () throws -> Result) throws -> Result {
        let target = try AtomicFileWriter.resolvingLinks(mapped(path), in: fileSystem)
        return try FileLock.withExclusiveLock(AtomicFileWriter.lockFile(of: target), in: fileSystem, body)
    }
}
