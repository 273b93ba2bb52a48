import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// The writable file store of a ``Keychain`` (``SecretSource/fileStore(directory:)``): one file
/// per key, mode `0600`, in a `0700` directory.
///
/// A write creates a new `0600` file beside the old one, `fsync`s it, renames it over the old
/// one and `fsync`s the directory (in a sandbox, without the `fsync`s), so a reader sees the old
/// secret or the new one, never a mix, and a crash loses at most the write in flight. The file
/// holds the value and one newline, which reads remove. Files, or a directory, that other users
/// can read or write are refused with an error naming the mode: permissions are the store's only
/// protection (it does not encrypt).
///
/// Writes take no lock: two threads writing or removing one key are as safe as two processes
/// are (each write renames a temporary file of its own over the old one; a directory created
/// meanwhile by another writer is accepted), and the last rename wins, as between processes.
final class SecretFileStore: Sendable {
    let files: SecretFiles
    /// Makes the directory's path, on first use: the default one names the storage name, which
    /// can't change once used, so merely creating a keychain must not fix it.
    private let makeDirectory: @Sendable () -> String
    private let resolvedDirectory = LockedBox<String?>(nil)

    init(files: SecretFiles, directory: @escaping @Sendable () -> String) {
        self.files = files
        self.makeDirectory = directory
    }

    /// The store's directory as configured (unmapped).
    var directory: String {
        if let directory = resolvedDirectory.withLock({ $0 }) { return directory }
        let made = makeDirectory()  // Outside the lock: it may read the file system.
        return resolvedDirectory.withLock { resolved in
            if let resolved { return resolved }
            resolved = made
            return made
        }
    }

    /// The path of `key`'s file, as errors name it.
    func path(of key: String) -> String {
        files.mapped((directory as NSString).appendingPathComponent(key))
    }

    /// How errors name `key`'s file.
    func sourceDescription(of key: String) -> String {
        "the secret store file \(path(of: key))"
    }

    /// The secret stored under `key`, or `nil`.
    func read(_ key: String, limit: Int) throws(SecureStateError) -> String? {
        try files.readSecret(at: path(of: key), key: key, source: sourceDescription(of: key), limit: limit, rule: .privateStore(directory: files.mapped(directory)))
    }

    /// Stores `value` under `key`, replacing the file atomically.
    func write(_ value: String, forKey key: String) throws(SecureStateError) {
        let source = sourceDescription(of: key)
        let fileSystem = files.fileSystem
        let directoryPath = files.mapped(directory)
        let path = path(of: key)
        try prepareDirectory(directoryPath, key: key, source: source)
        let existing: FileStatus?
        do {
            existing = try fileSystem.status(of: path)
        } catch {
            throw .fileSystem(error, kind: .writeFailed, key: key, source: source)
        }
        if existing?.isDirectory == true {
            throw SecureStateError(.isDirectory, key: key, source: source, detail: "found a directory where the file holding the secret should be; nothing was written")
        }
        sweepAbandonedTemporaryFiles(in: directoryPath)
        let temporary = (directoryPath as NSString).appendingPathComponent(SecretKey.temporaryName(forKey: key))
        do {
            _ = try fileSystem.createFile(temporary, contents: Data((value + "\n").utf8), datedAfter: nil, durable: files.isDurable, replacing: path)
        } catch {
            throw .fileSystem(error, kind: .writeFailed, key: key, source: source)
        }
        do {
            try fileSystem.rename(temporary, to: path)
            if files.isDurable { try fileSystem.synchronizeDirectory(directoryPath) }
        } catch {
            try? fileSystem.remove(temporary)  // Best effort: the write already failed, and says so.
            throw .fileSystem(error, kind: .writeFailed, key: key, source: source)
        }
    }

    /// Removes `key`'s file, if any.
    func remove(_ key: String) throws(SecureStateError) {
        let source = sourceDescription(of: key)
        let fileSystem = files.fileSystem
        let path = path(of: key)
        let existing: FileStatus?
        do {
            existing = try fileSystem.status(of: path)
        } catch {
            throw .fileSystem(error, kind: .writeFailed, key: key, source: source)
        }
        guard let existing else { return }
        if existing.isDirectory {
            throw SecureStateError(.isDirectory, key: key, source: source, detail: "found a directory where the file holding the secret should be; nothing was removed")
        }
        do {
            try fileSystem.remove(path)
            if files.isDurable { try fileSystem.synchronizeDirectory(files.mapped(directory)) }
        } catch {
            throw .fileSystem(error, kind: .writeFailed, key: key, source: source)
        }
    }

    /// The keys stored (file names not starting with `.`); none when the directory is missing.
    func keys() throws(SecureStateError) -> [String] {
        do {
            return try files.fileSystem.contentsOfDirectory(files.mapped(directory)).filter { !$0.hasPrefix(".") }
        } catch {
            if error.code == ENOENT || error.code == ENOTDIR { return [] }
            throw .fileSystem(error, kind: .unreadable, key: "*", source: "the secret store directory \(files.mapped(directory))")
        }
    }

    /// How old a temporary file of the store must be before a write removes it: a write renames
    /// its temporary file within moments, so one this old was left by a process that crashed.
    static let abandonedTemporaryAge: Int64 = 15 * 60

    /// Removes the temporary files (``SecretKey/isTemporaryName(_:)``) that a crash left in the
    /// store, judged by age alone: a file of a write still in progress, in this process or
    /// another one sharing the directory, is never that old. Best effort: a file that can't be
    /// examined or removed stays until a later write, and the write goes on.
    private func sweepAbandonedTemporaryFiles(in directoryPath: String) {
        let fileSystem = files.fileSystem
        guard let names = try? fileSystem.contentsOfDirectory(directoryPath) else { return }  // The write reports the directory's problems.
        let now = Int64(Date().timeIntervalSince1970)
        for name in names where SecretKey.isTemporaryName(name) {
            let path = (directoryPath as NSString).appendingPathComponent(name)
            guard let status = try? fileSystem.status(of: path), !status.isDirectory,
                  now - status.stamp.modifiedSeconds >= Self.abandonedTemporaryAge
            else { continue }
            try? fileSystem.remove(path)  // Best effort, as above.
        }
    }

    /// Creates the store's directory (and missing parents) with mode `0700`, or checks that the
    /// existing one is a directory nobody else can access.
    private func prepareDirectory(_ directoryPath: String, key: String, source: String) throws(SecureStateError) {
        let fileSystem = files.fileSystem
        let directorySource = "the secret store directory \(directoryPath)"
        func status(of path: String) throws(SecureStateError) -> FileStatus? {
            do {
                return try fileSystem.status(of: path)
            } catch {
                throw .fileSystem(error, kind: .writeFailed, key: key, source: directorySource)
            }
        }
        if let existing = try status(of: directoryPath) {
            guard existing.isDirectory else {
                throw SecureStateError(.writeFailed, key: key, source: directorySource, detail: "it is a file, not a directory; nothing was written")
            }
            var owner: UInt32?
            if fileSystem is POSIXFileSystem {
                do {
                    owner = try SecretFileReader.ownerAndPermissions(of: directoryPath)?.owner
                } catch {
                    throw .fileSystem(error, kind: .writeFailed, key: key, source: directorySource)
                }
            }
            if let problem = SecretFileRules.storeDirectoryProblem(permissions: existing.permissions, owner: owner, path: directoryPath, action: "written") {
                throw SecureStateError(.insecurePermissions, key: key, source: directorySource, detail: problem)
            }
            return
        }
        var missing: [String] = []
        var current = directoryPath
        while current != "/", !current.isEmpty, try status(of: current) == nil {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() {
            do {
                try fileSystem.makeDirectory(path)
                if files.isDurable { try fileSystem.synchronizeDirectory((path as NSString).deletingLastPathComponent) }
            } catch where error.code == EEXIST {
                continue  // Another process created it in between.
            } catch {
                throw .fileSystem(error, kind: .writeFailed, key: key, source: directorySource)
            }
        }
    }
}
