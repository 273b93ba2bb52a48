import AppStateKitCore
import Foundation

/// Compaction on request, for operators (`appstatekit kv compact`) and maintenance jobs.
extension FileKeyValueStore {
    /// What ``compact()`` did.
    public enum CompactionResult: Sendable, Equatable {
        /// There was no log beside the file: the file alone is the store already.
        case nothingToCompact
        /// The log's records were folded into the file; `logBytes` is the log's size before.
        case compacted(logBytes: Int)
    }

    /// Folds the log beside the store's file (``Layout/appendOnlyLog``, or one another process
    /// left) into the file, under the `flock` every writer takes, so it is safe while apps write.
    /// With ``Layout/appendOnlyLog`` an empty log is started; with ``Layout/singleFile`` the log
    /// is removed. Entries that can't be read are kept as they are. A log whose tail is damaged
    /// is folded up to its last readable record and moved aside (reported with its new path).
    ///
    /// - Throws: ``PersistenceError``: `corruptData` when the file itself can't be decoded (it is
    ///   left for the next write to move aside, so nothing is lost silently), or the failure of a
    ///   read or write; the store is then as it was.
    @discardableResult
    public func compact() throws -> CompactionResult {
        var notes: [Note] = []
        defer { Self.log(notes) }
        return try FileLock.withExclusiveLock(lockPath, in: fileSystem) {
            let (entries, corruption, log, mark, counter) = try locked.withLock { locked in
                locked.cache.freshness.attach(lockPath: lockPath, in: fileSystem, create: true)
                let mark = locked.cache.freshness.mark()
                try reloadIfChanged(&locked.cache, &notes)
                let cache = locked.cache
                return (cache.entries, cache.corruption, cache.log, mark, cache.freshness.generation)
            }
            if let corruption {
                throw PersistenceError(.corruptData, subject: path, detail: "\(corruption); not compacted, the file is kept and moved aside by the next write")
            }
            guard let log else { return .nothingToCompact }
            let logPath = try self.logPath()
            let snapshot = try writeSnapshot(entries)
            var newLog: StoreLogPosition?
            if let problem = log.corruption {
                let aside = try AtomicFileWriter.moveAside(logPath, in: fileSystem)
                notes.append(.error("AppStateKit: corrupt data for \(path): \(problem); the log was moved to \(aside), its readable records are kept in the store's file"))
                newLog = layout == .appendOnlyLog ? try createLog(at: logPath) : nil
            } else if layout == .appendOnlyLog {
                newLog = try createLog(at: logPath)
            } else {
                try AtomicFileWriter.remove(logPath, durable: durability == .immediate, in: fileSystem)
            }
            let previous = counter?.increment()
            locked.withLock { locked in
                locked.cache.stamp = snapshot
                locked.cache.log = newLog
                locked.cache.freshness.recordOwnWrite(after: mark, previous: previous)
            }
            return .compacted(logBytes: log.consumed)
        }
    }
}
