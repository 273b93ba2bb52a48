import AppStateKitCore
import Foundation

/// Writing a batch: the store's file replaced (``FileKeyValueStore/Layout/singleFile``), or one
/// record appended to the log beside it (see ``StoreLog``) and a compaction when the log has
/// outgrown the file (``FileKeyValueStore/Layout/appendOnlyLog``).
extension FileKeyValueStore {
    /// The default ``compactionThreshold``: a write costs, amortised, about twice its own record.
    package static let defaultCompactionThreshold = 256 * 1024

    struct Written {
        var snapshot: FileStamp?
        var log: StoreLogPosition?
    }

    /// Makes `changes` durable, holding the `flock` (the cache still holds the entries before
    /// the batch), or throws and the store holds what it held before. Without a log the file is
    /// replaced with the batch applied (``Layout/appendOnlyLog`` first creates an empty log); a
    /// corrupt log is moved aside after its readable records are written into the file, then
    /// likewise. Otherwise a record is appended after the last complete one (cutting off a torn
    /// tail), and ``Layout/singleFile`` folds the log into the file and removes it,
    /// ``Layout/appendOnlyLog`` compacts it once it outgrew the file.
    func writeBatch(_ changes: StoreLog.Batch, snapshot: FileStamp?, log: StoreLogPosition?, notes: inout [Note]) throws -> Written {
        // Before the log is touched (replacing the file checks it too).
        if layout == .appendOnlyLog || log != nil { try AtomicFileWriter.checkNameLength(path) }
        let logPath = try self.logPath()
        do {
            return try writeBatch(changes, snapshot: snapshot, log: log, logPath: logPath, notes: &notes)
        } catch let error as PersistenceError where error.subject == logPath {
            // The log is part of the store: its failures are the store's (and name the key).
            throw PersistenceError(error.kind, errno: error.errno, key: "", path: path, detail: error.detail)
        }
    }

    private func writeBatch(
        _ changes: StoreLog.Batch, snapshot: FileStamp?, log: StoreLogPosition?, logPath: String, notes: inout [Note]
    ) throws -> Written {
        guard var log else { return try writeWithoutLog(logPath: logPath, changes: changes) }
        if log.epoch == nil || log.corruption != nil {
            let problem = log.corruption ?? "the log \(logPath) does not start with a log header"
            _ = try writeSnapshot(entries(after: [:]))
            let aside = try AtomicFileWriter.moveAside(logPath, in: fileSystem)
            notes.append(.error("AppStateKit: corrupt data for \(path): \(problem); the log was moved to \(aside), its readable records are kept in the store's file"))
            return try writeWithoutLog(logPath: logPath, changes: changes)
        }
        var snapshot = snapshot
        if log.version < 2 {
            // An earlier version's log: fold it into the file and start a version-2 log, so every
            // record appended from now on has its length checked too. A crash in between
            // applies the old records again to a file that holds them: nothing changes.
            snapshot = try writeSnapshot(entries(after: [:]))
            log = try createLog(at: logPath)
        }
        return try append(try Self.record(changes, path: path), to: logPath, at: log, snapshot: snapshot, changes: changes, notes: &notes)
    }

    private static func record(_ changes: StoreLog.Batch, path: String) throws -> Data {
        do {
            return try StoreLog.record(changes)
        } catch {
            throw BatchEncodingFailure(error: PersistenceError(.encodingFailed, subject: path, detail: shortDescription(of: error)))
        }
    }

    /// Replaces the file with the batch applied; with ``Layout/appendOnlyLog``, after creating an
    /// empty log (so a failed file write leaves the store as it was).
    private func writeWithoutLog(logPath: String, changes: StoreLog.Batch) throws -> Written {
        let created = layout == .appendOnlyLog ? try createLog(at: logPath) : nil
        return Written(snapshot: try writeSnapshot(entries(after: changes)), log: created)
    }

    /// Appends `record` to the log at `log.consumed`, then compacts when due.
    private func append(
        _ record: Data, to logPath: String, at log: StoreLogPosition, snapshot: FileStamp?, changes: StoreLog.Batch,
        notes: inout [Note]
    ) throws -> Written {
        if log.consumed + record.count > maximumFileSize {
            throw BatchEncodingFailure(error: PersistenceError(
                .encodingFailed, subject: path, detail: "the log would grow past the store's limit of \(maximumFileSize) bytes"
            ))
        }
        // What writers killed in a compaction left (once per path and process).
        AtomicFileWriter.removeAbandonedTemporaryFiles(of: logPath, in: fileSystem)
        AtomicFileWriter.removeAbandonedTemporaryFiles(of: try AtomicFileWriter.resolvingLinks(path, in: fileSystem), in: fileSystem)
        _ = try PersistenceError.naming(logPath) {
            try fileSystem.append(record, to: logPath, after: log.consumed, durable: durability == .immediate, for: path)
        }
        var appended = log
        appended.consumed += record.count
        var written = Written(snapshot: snapshot, log: appended)
        let due = layout == .singleFile || appended.consumed > max(Int(snapshot?.size ?? 0), compactionThreshold)
        guard due else { return written }
        // The batch is durable: a failed compaction is reported, and the next write tries again.
        // Its records are in the new file, so applying them again after a crash changes nothing.
        do {
            written.snapshot = try writeSnapshot(entries(after: changes))
            if layout == .singleFile {
                try AtomicFileWriter.remove(logPath, durable: durability == .immediate, in: fileSystem)
                written.log = nil
            } else {
                written.log = try createLog(at: logPath)
            }
        } catch {
            let problem = (error as? BatchEncodingFailure)?.error ?? error
            notes.append(.error("AppStateKit: could not compact the store \(path): \(problem); its log keeps every write"))
        }
        return written
    }

    /// The cached entries with `changes` applied (a copy: only for rewriting the whole file).
    private func entries(after changes: StoreLog.Batch) -> [String: StoreEntry] {
        var entries = locked.withLock { $0.cache.entries }
        StoreLog.apply([changes], to: &entries)
        return entries
    }

    func writeSnapshot(_ entries: [String: StoreEntry]) throws -> FileStamp? {
        let data: Data
        do {
            let encoder = JSONCoders.encoder([.prettyPrinted, .sortedKeys])
            data = try encoder.encode(entries)
        } catch {
            throw BatchEncodingFailure(error: PersistenceError(.encodingFailed, subject: path, detail: shortDescription(of: error)))
        }
        if data.count > maximumFileSize {
            // A file this store (or the next process) could not read back: refused before writing.
            throw BatchEncodingFailure(error: PersistenceError(
                .encodingFailed, subject: path, detail: "the store would be \(data.count) bytes, more than its limit of \(maximumFileSize)"
            ))
        }
        return try AtomicFileWriter.write(data, to: path, durable: durability == .immediate, announcing: false, reportingLateFlush: true, in: fileSystem)
    }

    /// Replaces the log with an empty one of a new epoch, atomically.
    func createLog(at logPath: String) throws -> StoreLogPosition {
        let header = StoreLog.newHeader()
        let stamp = try AtomicFileWriter.write(header, to: logPath, durable: durability == .immediate, announcing: false, reportingLateFlush: true, in: fileSystem)
        guard let stamp else {
            throw PersistenceError(.ioFailure, subject: logPath, detail: "the new log has no stamp")
        }
        return StoreLogPosition(device: stamp.device, inode: stamp.inode, epoch: StoreLog.epoch(ofHeader: header), consumed: header.count)
    }
}
