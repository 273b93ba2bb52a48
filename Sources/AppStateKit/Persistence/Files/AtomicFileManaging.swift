import Foundation

/// The file operations ``Application/FileState`` performs, beyond the public ``FileManaging``:
/// reading, atomic replacement, the ``FileStamp`` that tells it a file changed, and moving a
/// corrupt file aside. A package seam, so stamps and atomic writes can change without breaking
/// anyone's `FileManaging`.
///
/// `FileManager`, the sandbox of an isolated application and `AppStateKitTesting`'s
/// `InMemoryFileSystem` conform. A file manager that doesn't is used through ``RealFiles``
/// (see ``FileManaging/atomicFiles``). The default implementations act on the real file system:
/// they write atomically (temporary file, `fsync`, `rename`) with mode `0600` files in `0700`
/// directories, and write through symbolic links to the files they point to.
package protocol AtomicFileManaging: FileManaging {
    /// The contents of the file at `path`, or `nil` when there is none.
    func contents(ofFile path: String) throws -> Data?

    /// Replaces the file at `path` with `data` atomically.
    func writeAtomically(_ data: Data, toFile path: String) throws

    /// Replaces the file at `path` with `data` atomically and returns the new file's stamp, taken
    /// before the file was renamed into place — or `nil` when the implementation can't tell.
    ///
    /// ``Application/FileState`` caches the value it wrote under this stamp; with `nil` it reads
    /// the file back on the next access instead. (A stamp taken after the rename could belong to
    /// another process's replacement, and the cache would then hide that process's value.)
    /// The default implementation calls ``writeAtomically(_:toFile:)`` and returns `nil`;
    /// `FileManager` returns the stamp.
    func writeAtomicallyWithStamp(_ data: Data, toFile path: String) throws -> FileStamp?

    /// The stamp of the file at `path` (changes with every replacement), or `nil` when there is
    /// no file or it can't be examined.
    func stamp(ofFile path: String) -> FileStamp?

    /// The stamp of the file at `path`, or `nil` only when there is no file (`ENOENT`,
    /// `ENOTDIR`).
    ///
    /// ``Application/FileState`` reads through this, so a directory that can't be searched is
    /// reported instead of reading as "no file". The default implementation calls
    /// ``stamp(ofFile:)`` (which can't tell the two apart); `FileManager` throws a
    /// ``PersistenceError`` naming the path for every failure other than absence.
    func existingStamp(ofFile path: String) throws -> FileStamp?

    /// Moves the file at `path` to a `.corrupt-<time>` sibling and returns its new path.
    func moveAside(_ path: String) throws -> String

    /// Removes the file at `path`; does nothing when there is none.
    func removeFile(_ path: String) throws
}

extension AtomicFileManaging {
    /// Reads the whole file.
    package func contents(ofFile path: String) throws -> Data? {
        try AtomicFileWriter.read(path)
    }

    /// Writes through a flushed temporary file and a rename.
    package func writeAtomically(_ data: Data, toFile path: String) throws {
        try AtomicFileWriter.write(data, to: path)
    }

    /// Calls ``writeAtomically(_:toFile:)``; the stamp is unknown.
    package func writeAtomicallyWithStamp(_ data: Data, toFile path: String) throws -> FileStamp? {
        try writeAtomically(data, toFile: path)
        return nil
    }

    /// The file's device, inode, size and modification time.
    package func stamp(ofFile path: String) -> FileStamp? {
        FileStamp.of(path: path)
    }

    /// Calls ``stamp(ofFile:)``.
    package func existingStamp(ofFile path: String) throws -> FileStamp? {
        stamp(ofFile: path)
    }

    /// Moves the file aside to a `.corrupt-<time>` sibling that did not exist.
    package func moveAside(_ path: String) throws -> String {
        try AtomicFileWriter.moveAside(path)
    }

    /// Unlinks the file (the link's target, for a symbolic link), ignoring a missing one.
    package func removeFile(_ path: String) throws {
        try AtomicFileWriter.remove(path)
    }
}

extension FileManager: AtomicFileManaging {
    /// Writes through a flushed temporary file and a rename, returning the written file's stamp.
    package func writeAtomicallyWithStamp(_ data: Data, toFile path: String) throws -> FileStamp? {
        try AtomicFileWriter.write(data, to: path)
    }

    /// The file's stamp, `nil` when it does not exist; throws for every other failure.
    package func existingStamp(ofFile path: String) throws -> FileStamp? {
        try FileStamp.ofExistingFile(atPath: path)
    }
}

/// The real file system at the paths given, for a ``FileManaging`` of the user's that doesn't
/// implement ``AtomicFileManaging``: what the default implementations of earlier versions did.
struct RealFiles: AtomicFileManaging {
    /// The file manager types already reported by ``standing(in:)``.
    private static let reported = LockedBox<Set<ObjectIdentifier>>([])

    /// The real file system, standing in for `manager`: a `FileManaging` of the user's own,
    /// whose `in`/`out`/`delete` file states can't write through (they need atomic replaces and
    /// file stamps). Reports once per type that file states use the real files at their
    /// declared paths — a fake meant to keep a test off the disk doesn't.
    static func standing(in manager: any FileManaging) -> RealFiles {
        let managerType = type(of: manager)
        if reported.withLock({ $0.insert(ObjectIdentifier(managerType)).inserted }) {
            Diagnostics.report(
                error: "AppStateKit: \\.fileManager is a \(String(reflecting: managerType)), a FileManaging of your own: "
                    + "file states read and write the real files at their declared paths, not through it. "
                    + "To keep files in memory or inject failures, use AppStateKitTesting's InMemoryFileSystem; "
                    + "in tests, .isolatedApplication keeps files in a temporary directory"
            )
        }
        return RealFiles()
    }

    /// Removes the file or directory at `path`.
    func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: path)
    }
}
