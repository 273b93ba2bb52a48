import AppStateKitCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that a crash at any moment leaves either the old or the new complete file.
///
/// The bytes go to a temporary file in the same directory (mode `0600`), `fsync`ed and renamed
/// over the target; the directory is then `fsync`ed so the rename survives a power loss.
/// Missing directories are created with mode `0700`. Each new version is dated after the one it
/// replaces, so its ``FileStamp`` never repeats an old one. A symbolic link is written through:
/// the link stays, the file it points to is replaced.
package enum AtomicFileWriter {
    /// The longest file name (one path component) in bytes: `NAME_MAX` on Linux and macOS.
    package static let maximumNameLength = 255

    /// Writes `data` to `path` atomically (without `durable`, no `fsync`s: it survives a killed
    /// process, not an OS crash); `announcing` counts the change. Returns the stamp taken before
    /// the rename, so another process's replacement right after can't be mistaken for it.
    ///
    /// A failed flush of the directory after the rename throws, unless `reportingLateFlush`:
    /// then the write, which is in place, returns and the failure is reported through
    /// `\.logger` (what FileKeyValueStore and FileState do; see Persistence.md).
    @discardableResult
    package static func write(
        _ data: Data, to path: String, durable: Bool = true, announcing: Bool = true, reportingLateFlush: Bool = false,
        in fileSystem: some FileSystem = POSIXFileSystem()
    ) throws -> FileStamp? {
        try checkNameLength(path)
        let target = try resolvingLinks(path, in: fileSystem)
        let directory = directory(of: target)
        try createDirectory(directory, durable: durable, in: fileSystem)
        try checkTrustedDirectory(directory, in: fileSystem)
        removeAbandonedTemporaryFiles(of: target, in: fileSystem)
        let previous = try FileStamp.ofExistingFile(atPath: target, in: fileSystem)
        let replaced = try PersistenceError.naming(target) { try fileSystem.ownership(of: target) }
        let temporary = temporaryPath(for: target)
        let stamp = try PersistenceError.naming(target) {
            try fileSystem.createFile(temporary, contents: data, datedAfter: previous, durable: durable, replacing: target)
        }
        do {
            if let replaced, replaced.isRegularFile {
                // Keep the replaced file's mode (and, as root, its owner: one `sudo` write must
                // not lock the service out of its own file).
                let keepsOwner = geteuid() == 0 && (replaced.user != 0 || replaced.group != 0)
                try fileSystem.adopt(temporary, mode: replaced.mode, owner: keepsOwner ? (replaced.user, replaced.group) : nil)
            }
            try fileSystem.rename(temporary, to: target)
        } catch {
            do {
                try fileSystem.remove(temporary)
            } catch {
                // The rename's failure is the one to report; a leftover temporary file of this
                // process is removed by the first write of a later process.
            }
            throw PersistenceError(error, path: target)
        }
        if durable {
            // The new file is in place: every reader sees it and a killed process can't undo
            // it. Only its survival of a power loss is in doubt, so that is reported, and the
            // write is not failed (a caller would retry what is already done, or believe the
            // old value is still there).
            do {
                try fileSystem.synchronizeDirectory(directory.isEmpty ? "." : directory)
            } catch {
                guard reportingLateFlush else { throw PersistenceError(error, path: target) }
                let problem = PersistenceError(error, path: directory.isEmpty ? "." : directory)
                Diagnostics.report(error: "AppStateKit: \(target) was written, but flushing its directory failed, so the write may not survive a power loss: \(problem)")
            }
        }
        if announcing {
            announceChange(of: path, in: fileSystem)
            if target != path { announceChange(of: target, in: fileSystem) }
        }
        return stamp
    }

    /// The directories reported as group-writable, once each per process.
    private static let reportedSharedDirectories = LockedBox<Set<String>>([])

    /// Throws unless AppStateKit may create, replace and move files in the existing `directory`:
    /// not writable by every user, and owned by the effective user or root. Anyone who can
    /// write a directory can replace the files in it or plant a link under a name a write is
    /// about to use. A directory its group can write (other than the user's own group) is
    /// accepted — shared groups are an administrator's choice — and reported once.
    static func checkTrustedDirectory(_ directory: String, in fileSystem: some FileSystem) throws {
        let listed = directory.isEmpty ? "." : directory
        guard let status = try FileStamp.status(of: listed, in: fileSystem) else { return }
        if status.permissions & 0o002 != 0 {
            throw PersistenceError(
                .permissionDenied, subject: listed,
                detail: "every user can write this directory (mode \(String(status.permissions, radix: 8))), so anyone could replace its files or plant a link; use a directory only you can write (chmod o-w)"
            )
        }
        let ownership = try PersistenceError.naming(listed) { try fileSystem.ownership(of: listed) }
        guard let ownership, !ownership.isSymbolicLink else { return }
        if ownership.user != geteuid() && ownership.user != 0 {
            throw PersistenceError(
                .permissionDenied, subject: listed,
                detail: "the directory belongs to user \(ownership.user), not to this process's user \(geteuid()) or root; it could replace its files or plant a link"
            )
        }
        if status.permissions & 0o020 != 0, ownership.group != getegid(),
           reportedSharedDirectories.withLock({ $0.insert(listed).inserted }) {
            Diagnostics.report(error: "AppStateKit: the directory \(listed) is writable by its group \(ownership.group); its members can replace files in it (reported once)")
        }
    }

    /// Adds one to the ``SharedGeneration`` of `path`, so readers in every process notice the
    /// change without a `stat`. Without a lock file no reader relies on a counter (readers
    /// create it before their first check of the file), so nothing is counted.
    package static func announceChange(of path: String, in fileSystem: some FileSystem = POSIXFileSystem()) {
        if case let .shared(counter) = fileSystem.sharedGeneration(forLockFile: lockFile(of: path), create: false) {
            counter.increment()
        }
    }

    /// Creates `directory` and its parents with mode `0700` if missing; when `durable`, flushes
    /// each parent so a new directory survives a power loss like the file written into it.
    package static func createDirectory(_ directory: String, durable: Bool = true, in fileSystem: some FileSystem = POSIXFileSystem()) throws {
        guard !directory.isEmpty else { return }
        if let status = try FileStamp.status(of: directory, in: fileSystem) {
            guard status.isDirectory else {
                throw PersistenceError(.ioFailure, errno: ENOTDIR, subject: directory, detail: "exists and is not a directory")
            }
            return
        }
        let parent = self.directory(of: directory)
        if parent != directory { try createDirectory(parent, durable: durable, in: fileSystem) }
        do {
            try fileSystem.makeDirectory(directory)
        } catch where error.code == EEXIST {
            return
        } catch {
            throw PersistenceError(error, path: directory)
        }
        guard durable else { return }
        try PersistenceError.naming(directory) { try fileSystem.synchronizeDirectory(parent.isEmpty ? "." : parent) }
    }

    /// Moves the file at `path` (a link's target) aside to a `.corrupt-<milliseconds>` sibling, or
    /// `.corrupt-<milliseconds>-<n>` when that name is taken (never replacing a backup); returns it.
    package static func moveAside(_ path: String, in fileSystem: some FileSystem = POSIXFileSystem()) throws -> String {
        let source = try resolvingLinks(path, in: fileSystem)
        try checkTrustedDirectory(directory(of: source), in: fileSystem)
        let milliseconds = Int(Date().timeIntervalSince1970 * 1000)
        let base = sibling(of: source, suffix: ".corrupt-\(milliseconds)", reserving: 12)
        var attempt = 1
        while true {
            let destination = attempt == 1 ? base : "\(base)-\(attempt)"
            attempt += 1
            do {
                // link(2) fails with EEXIST instead of replacing, unlike rename(2).
                try fileSystem.link(source, to: destination)
            } catch where error.code == EEXIST {
                continue
            } catch where [EPERM, EOPNOTSUPP, ENOSYS, EMLINK].contains(error.code) {
                // No hard links here: rename to a name that is free right now.
                if try FileStamp.status(of: destination, in: fileSystem) != nil { continue }
                do {
                    try fileSystem.rename(source, to: destination)
                } catch {
                    throw PersistenceError.system(error.code, subject: source, operation: "rename to \(destination)")
                }
                announceChange(of: path, in: fileSystem)
                return destination
            } catch {
                throw PersistenceError.system(error.code, subject: source, operation: "link to \(destination)")
            }
            do {
                try fileSystem.remove(source)
            } catch {
                throw PersistenceError.system(error.code, subject: source, operation: "unlink after linking it to \(destination)")
            }
            announceChange(of: path, in: fileSystem)
            return destination
        }
    }

    /// The bytes of the file at `path`, or `nil` when there is none; a file of more than
    /// `limit` bytes throws (reading at most `limit + 1` bytes to tell).
    package static func read(
        _ path: String, limit: Int = ReadLimits.defaultMaximumFileSize, in fileSystem: some FileSystem = POSIXFileSystem()
    ) throws -> Data? {
        let data = try PersistenceError.naming(path) { try fileSystem.contents(of: path, from: 0, limit: limit + 1, for: path)?.data }
        if let data, data.count > limit { throw ReadLimits.tooLarge(path, limit: limit) }
        return data
    }

    /// Removes the file at `path` — a symbolic link itself, never its target, which may be
    /// outside the declared directory (as `rm` does); does nothing when there is none.
    ///
    /// When `durable`, the directory is flushed afterwards, so the removal survives a power
    /// loss; the file is gone either way, so a failed flush is reported, not thrown.
    package static func remove(_ path: String, durable: Bool = true, in fileSystem: some FileSystem = POSIXFileSystem()) throws {
        let directory = directory(of: path)
        try checkTrustedDirectory(directory, in: fileSystem)
        do {
            try fileSystem.remove(path)
        } catch where error.code == ENOENT {
            return
        } catch {
            throw PersistenceError(error, path: path)
        }
        if durable {
            do {
                try fileSystem.synchronizeDirectory(directory.isEmpty ? "." : directory)
            } catch {
                let problem = PersistenceError(error, path: directory.isEmpty ? "." : directory)
                Diagnostics.report(error: "AppStateKit: \(path) was removed, but flushing its directory failed, so the removal may not survive a power loss: \(problem)")
            }
        }
        announceChange(of: path, in: fileSystem)
    }

    /// The file `path` stands for: `path` itself, or — when it is a symbolic link, possibly to
    /// another link — the final target, which need not exist yet.
    ///
    /// A link is followed only when it and its directory belong to the effective user (or
    /// root) and its directory is not writable by every user: otherwise anyone could have
    /// planted it to make a write replace, or a move aside take away, a file of their choice.
    package static func resolvingLinks(_ path: String, in fileSystem: some FileSystem) throws -> String {
        var current = path
        for _ in 0..<40 {
            let target = try PersistenceError.naming(current) { try fileSystem.linkTarget(of: current) }
            guard let target else { return current }
            try checkTrustedLink(current, in: fileSystem)
            current = target.hasPrefix("/") ? target : (directory(of: current) as NSString).appendingPathComponent(target)
        }
        throw PersistenceError.system(ELOOP, subject: path, operation: "follow symbolic links")
    }

    /// Throws unless the symbolic link at `link` may be followed (see ``resolvingLinks(_:in:)``).
    private static func checkTrustedLink(_ link: String, in fileSystem: some FileSystem) throws {
        let ownership = try PersistenceError.naming(link) { try fileSystem.ownership(of: link) }
        if let ownership, ownership.user != geteuid(), ownership.user != 0 {
            throw PersistenceError(
                .permissionDenied, subject: link,
                detail: "is a symbolic link owned by user \(ownership.user), not by this process's user \(geteuid()) or root; it is not followed"
            )
        }
        do {
            try checkTrustedDirectory(directory(of: link), in: fileSystem)
        } catch let error as PersistenceError {
            throw PersistenceError(error.kind, errno: error.errno, subject: link, detail: "is a symbolic link in \(error.subject), where \(error.detail); it is not followed")
        }
    }

    static func checkNameLength(_ path: String) throws {
        if path.utf8.count <= maximumNameLength { return }
        let name = (path as NSString).lastPathComponent
        let length = name.utf8.count
        guard length <= maximumNameLength else {
            throw PersistenceError(
                .invalidFilename, subject: path,
                detail: "the file name is \(length) bytes long; the limit is \(maximumNameLength)"
            )
        }
    }

    /// Empty for a bare name.
    package static func directory(of path: String) -> String {
        (path as NSString).deletingLastPathComponent
    }

    /// The lock file of `path`, `<name>.lock` beside it, which writers `flock` and whose first 8
    /// bytes are the ``SharedGeneration``.
    package static func lockFile(of path: String) -> String {
        sibling(of: path, suffix: ".lock")
    }

    /// `path` + `suffix` as a sibling whose name always fits in ``maximumNameLength`` bytes,
    /// even with `reserving` more bytes appended later: a long file name is shortened (at a
    /// character boundary) before the suffix.
    package static func sibling(of path: String, suffix: String, reserving: Int = 0) -> String {
        // A path that short has a name that short: no need to split it.
        if path.utf8.count + suffix.utf8.count + reserving <= maximumNameLength { return path + suffix }
        let name = (path as NSString).lastPathComponent
        let budget = maximumNameLength - suffix.utf8.count - reserving
        guard name.utf8.count > budget else { return path + suffix }
        var shortened = ""
        var length = 0
        for character in name.unicodeScalars {
            let size = String(character).utf8.count
            if length + size > budget { break }
            shortened.unicodeScalars.append(character)
            length += size
        }
        return (directory(of: path) as NSString).appendingPathComponent(shortened + suffix)
    }
}
