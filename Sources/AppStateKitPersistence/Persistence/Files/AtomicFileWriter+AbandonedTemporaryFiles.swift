import AppStateKitCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Cleaning up after writers killed between creating their temporary file
/// (`<name>.tmp-<pid>-<random>`) and renaming it: the first write to a path in each process
/// removes that path's temporary files that are provably abandoned — last modified more than
/// ``abandonedAge`` ago *and* named after a process that doesn't exist here. A process id
/// alone proves nothing on a volume that containers (other pid namespaces) share: their live
/// writers' ids mean other processes, or none, here. No write keeps its temporary file for
/// minutes, so the age does prove it. Those of live processes (this one included) are left
/// alone.
extension AtomicFileWriter {
    /// The longest `-<pid>-<random>` part of a temporary name.
    private static let uniquePartLength = 22
    /// How long a temporary file must have been left unmodified before it counts as abandoned.
    static let abandonedAge: Int64 = 15 * 60
    /// The paths already swept in this process.
    private static let sweptPaths = LockedBox<Set<String>>([])

    /// The temporary file this process writes before renaming it over `path`. Its name fits in
    /// ``maximumNameLength`` bytes whatever the length of `path`'s name.
    static func temporaryPath(for path: String) -> String {
        "\(temporaryPrefix(for: path))\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// `<path's name, shortened if needed>.tmp-`: what every temporary file of `path` starts with.
    static func temporaryPrefix(for path: String) -> String {
        sibling(of: path, suffix: temporaryMarker, reserving: uniquePartLength)
    }

    /// What separates a temporary file's target name from its unique part.
    private static let temporaryMarker = ".tmp-"

    /// Whether `name` has the shape of a temporary file's name, `<name>.tmp-<pid>-<random>`.
    static func isTemporaryName(_ name: String) -> Bool {
        guard let marker = name.range(of: temporaryMarker, options: .backwards) else { return false }
        return owningProcess(ofTemporaryName: name[marker.upperBound...]) != nil
    }

    /// Removes abandoned temporary files of `path`, once per path per process. Housekeeping
    /// never fails a write: a file that can't be removed is reported.
    static func removeAbandonedTemporaryFiles(of path: String, in fileSystem: some FileSystem = POSIXFileSystem()) {
        guard sweptPaths.withLock({ $0.insert(path).inserted }) else { return }
        let directory = directory(of: path)
        let listed = directory.isEmpty ? "." : directory
        let prefix = (temporaryPrefix(for: path) as NSString).lastPathComponent
        let names: [String]
        do {
            names = try fileSystem.contentsOfDirectory(listed)
        } catch where error.code == ENOENT {
            return
        } catch {
            let problem = PersistenceError.system(error.code, subject: listed, operation: "list the directory to remove abandoned temporary files")
            Diagnostics.report(error: "AppStateKit: \(problem)")
            return
        }
        for name in names where name.hasPrefix(prefix) {
            guard let owner = owningProcess(ofTemporaryName: name.dropFirst(prefix.count)), !isAlive(owner) else { continue }
            let temporary = (listed as NSString).appendingPathComponent(name)
            do {
                // A link or anything but a regular file is not one of ours; a young file may be
                // a live writer's in another container.
                if let ownership = try fileSystem.ownership(of: temporary), !ownership.isRegularFile { continue }
                guard let status = try fileSystem.status(of: temporary), !status.isDirectory,
                      Int64(time(nil)) - status.stamp.modifiedSeconds >= abandonedAge
                else { continue }
                try fileSystem.remove(temporary)
            } catch where error.code == ENOENT {
                continue  // another process removed it first
            } catch {
                Diagnostics.report(error: "AppStateKit: \(PersistenceError(error, path: temporary))")
            }
        }
    }

    /// The process id in `<pid>-<random>` (what follows `.tmp-`), or `nil` for another shape.
    private static func owningProcess(ofTemporaryName suffix: Substring) -> pid_t? {
        let parts = suffix.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, UInt32(parts[1]) != nil, let pid = pid_t(parts[0]), pid > 0 else { return nil }
        return pid
    }

    /// Whether a process with id `pid` exists (this one always does).
    private static func isAlive(_ pid: pid_t) -> Bool {
        if pid == getpid() { return true }
        if kill(pid, 0) == 0 { return true }
        return errno != ESRCH  // EPERM: it exists but belongs to another user
    }
}
