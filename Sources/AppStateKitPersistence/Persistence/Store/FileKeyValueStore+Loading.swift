import AppStateKitCore
import Foundation

/// Keeping the cache in step with the file and its log.
extension FileKeyValueStore {
    /// Checks the stamps of the file and its log; reads the records appended since the last
    /// check, or re-reads both when either was replaced, into `cache` (the store's lock held); a
    /// failure leaves the cache as it was. The counter is read *before* the `stat`s, so a write
    /// counted after it is never mistaken for seen.
    func reloadIfChanged(_ cache: inout Cache, _ notes: inout [Note]) throws {
        // Map the counter (creating the lock file if the directory exists: never a directory,
        // never the store file), or check the mapped one is still the lock file's.
        if cache.freshness.generation == nil {
            cache.freshness.attach(lockPath: lockPath, in: fileSystem, create: true)
        } else {
            cache.freshness.checkIdentity(lockPath: lockPath, in: fileSystem)
        }
        let mark = cache.freshness.mark()
        let stamp = try FileStamp.ofExistingFile(atPath: path, in: fileSystem)
        let logPath = try self.logPath()
        let logStamp = try logStamp(logPath)
        if stamp == cache.stamp, let log = cache.log, let logStamp, log.isSameFile(as: logStamp) {
            if Int(logStamp.size) == log.consumed || log.corruption != nil || log.epoch == nil {
                cache.freshness.record(mark)
                return
            }
            if try readAppendedRecords(logPath: logPath, after: log, into: &cache) {
                cache.freshness.record(mark)
                return
            }
        } else if stamp == cache.stamp, cache.log == nil, logStamp == nil, stamp != nil || cache.entries.isEmpty {
            cache.freshness.record(mark)
            return
        }
        var reloaded = try readSnapshotAndLog(stamp: stamp, logPath: logPath)
        reloaded.freshness = cache.freshness
        reloaded.freshness.record(mark)
        cache = reloaded
        let damaged = reloaded.entries.values.filter { if case .damaged = $0 { true } else { false } }.count
        let count = reloaded.entries.count
        let summary = reloaded.corruption == nil && reloaded.log?.corruption == nil
            ? "\(count) \(count == 1 ? "key" : "keys"), \(damaged) unreadable" : "corrupt"
        notes.append(.debug("AppStateKit: reloaded the store \(path) (\(summary))"))
    }

    /// The log beside the store's file (beside the file a symbolic link points to).
    func logPath() throws -> String {
        AtomicFileWriter.sibling(of: try AtomicFileWriter.resolvingLinks(path, in: fileSystem), suffix: ".log")
    }

    /// Applies the records appended since `log.consumed`; `false` when the log was replaced.
    private func readAppendedRecords(logPath: String, after log: StoreLogPosition, into cache: inout Cache) throws -> Bool {
        guard let (data, stamp) = try read(logPath, from: log.consumed, limit: max(maximumFileSize + 1 - log.consumed, 1)),
              log.isSameFile(as: stamp) else { return false }
        if log.consumed + data.count > maximumFileSize { throw ReadLimits.tooLarge(logPath, limit: maximumFileSize) }
        let scan = StoreLog.scan(data, base: log.consumed, version: log.version)
        StoreLog.apply(scan.batches, to: &cache.entries)
        cache.log?.consumed = scan.consumed
        cache.log?.corruption = scan.corruption.map { "the log \(logPath) is corrupt: \($0)" }
        return true
    }

    /// The file (stamped `stamp`) with its log applied.
    ///
    /// Readers take no lock, so a compaction may replace both while they read. The log is read
    /// first and its header checked again after the file: when it is still the same log, the
    /// file read is the one it belongs to or the compaction's result (which already holds the
    /// log's records, and applying them again changes nothing). Otherwise it reads again.
    private func readSnapshotAndLog(stamp firstStamp: FileStamp?, logPath: String) throws -> Cache {
        var stamp = firstStamp
        for attempt in 0..<100 {
            if attempt > 0 { stamp = try FileStamp.ofExistingFile(atPath: path, in: fileSystem) }
            let log = try read(logPath, from: 0, limit: maximumFileSize + 1)
            if let log, log.data.count > maximumFileSize { throw ReadLimits.tooLarge(logPath, limit: maximumFileSize) }
            var reloaded = Cache(stamp: stamp)
            if stamp != nil, let data = try AtomicFileWriter.read(path, limit: maximumFileSize, in: fileSystem) {
                if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                    reloaded.corruption = "the file is empty"
                } else {
                    do {
                        try ReadLimits.checkNesting(data, path: path)
                        reloaded.entries = try JSONCoders.decoder().decode([String: StoreEntry].self, from: data)
                    } catch {
                        reloaded.corruption = "the file is not a JSON object of entries (\(shortDescription(of: error)))"
                    }
                }
            } else {
                reloaded.stamp = nil
            }
            guard let (bytes, logStamp) = log else {
                if try logStamp(logPath) == nil { return reloaded }
                continue
            }
            let epoch = StoreLog.epoch(ofHeader: bytes)
            guard let (header, again) = try read(logPath, from: 0, limit: StoreLog.headerLength),
                  again.device == logStamp.device, again.inode == logStamp.inode, StoreLog.epoch(ofHeader: header) == epoch
            else { continue }
            var position = StoreLogPosition(device: logStamp.device, inode: logStamp.inode, epoch: epoch, consumed: 0)
            position.version = StoreLog.version(ofHeader: bytes) ?? 2
            if epoch == nil {
                position.corruption = "the log \(logPath) does not start with a log header"
            } else {
                let scan = StoreLog.scan(bytes.dropFirst(StoreLog.headerLength), base: StoreLog.headerLength, version: position.version)
                StoreLog.apply(scan.batches, to: &reloaded.entries)
                position.consumed = scan.consumed
                position.corruption = scan.corruption.map { "the log \(logPath) is corrupt: \($0)" }
            }
            reloaded.log = position
            return reloaded
        }
        throw PersistenceError(.ioFailure, subject: path, detail: "the store and its log kept being replaced while being read")
    }

    /// The log's stamp; a failure names the store, which the log is part of.
    private func logStamp(_ logPath: String) throws -> FileStamp? {
        try PersistenceError.naming(path) { try fileSystem.status(of: logPath)?.stamp }
    }

    /// Part of the log at `logPath`; a failure names the store.
    func read(_ logPath: String, from offset: Int, limit: Int?) throws -> (data: Data, stamp: FileStamp)? {
        try PersistenceError.naming(path) { try fileSystem.contents(of: logPath, from: offset, limit: limit, for: path) }
    }
}
