import AppStateKitCore
import AppStateKitPersistence
import Foundation

extension LocalSyncStore {
    /// Commits `value` for `key` (`nil` removes it) and returns the committed record once the
    /// file is durable.
    ///
    /// A damaged record of `key` is first saved to a `.corrupt-record-<time>` sibling and
    /// reported through `\.logger`.
    ///
    /// - Throws: ``SyncStoreError`` of kind `invalidKey` or `valueTooLarge` (nothing written);
    ///   `ioFailure` when the file can't be read, written or flushed (the file is then unchanged,
    ///   except when only the final directory flush failed: the new file is then in place but may
    ///   not survive a power loss); `ioFailure` for a file written by a newer AppStateKit.
    public func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        switch try await commit(value, forKey: key, expectedVersion: nil) {
        case let .committed(record):
            return record
        case .conflict:
            preconditionFailure("an unconditional write cannot conflict")
        }
    }

    /// Commits `value` for `key` (`nil` removes it) only if the key's version in the file is
    /// `expectedVersion` (0: never written), holding the inter-process lock from the check to
    /// the durable write.
    ///
    /// - Returns: ``SyncCommit/committed(_:)`` with the new record, or
    ///   ``SyncCommit/conflict(current:)`` with the record in the file (nothing written).
    /// - Throws: ``SyncStoreError`` as ``write(_:forKey:)`` does, and `corruptRecord` when the
    ///   key's record is damaged (its version can't be compared).
    public func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try await commit(value, forKey: key, expectedVersion: expectedVersion)
    }

    private func commit(_ value: Data?, forKey key: String, expectedVersion: Int64?) async throws -> SyncCommit {
        try SyncLimits.check(key: key, value: value)
        // Messages are logged here, in the caller's task, so they reach its application's logger.
        let (result, reports) = await withCheckedContinuation { continuation in
            commitQueue.async {
                var reports: [String] = []
                let result = Result { try self.commitNow(value, forKey: key, expectedVersion: expectedVersion, reports: &reports) }
                continuation.resume(returning: (result, reports))
            }
        }
        log(reports)
        return try result.get()
    }

    /// The read-check-write cycle, run on `commitQueue` while holding the inter-process lock.
    /// Messages to log are appended to `reports`.
    private func commitNow(_ value: Data?, forKey key: String, expectedVersion: Int64?, reports: inout [String]) throws -> SyncCommit {
        do {
            return try FileLock.withExclusiveLock(lockPath, in: fileSystem) {
                // 1. Catch up with the file (other processes' commits reach the feeds here too).
                let loaded = cache.withLock { contents in
                    reports += contents.refresh()
                    return Loaded(contents)
                }
                var file = loaded.file
                var base = loaded.stamp
                switch loaded.failure {
                case nil:
                    // A record reading left out (a key's second record) is kept with the file.
                    if file.droppedRecords, let bytes = try LocalSyncCache.read(path, in: fileSystem, limit: maxFileBytes) {
                        let aside = try keepAside(undecodable: bytes)
                        reports.append("AppStateKit: the sync store \(path) held records that could not all be kept (two records of one key); its bytes were kept at \(aside)")
                    }
                case .unreadable, .unusable(.unsupportedFormat):
                    throw error(for: loaded.failure!, key: key)
                case .unusable(.corrupt), .unusable(.tooLarge):
                    // Kept aside, not moved: the commit below renames the new file over the
                    // unusable one, so a reader never finds the store missing (which it would
                    // take as a deletion and serve initial values until the new file). A file
                    // within the limit is copied; a larger one gets a second hard link (nothing
                    // is read past the limit). The records read before the damage, or in the
                    // first maxFileBytes bytes, are kept in the new file.
                    let read = try PersistenceError.naming(path) { try fileSystem.contents(of: path, from: 0, limit: maxFileBytes + 1, for: path) }
                    file = .empty
                    if let bytes = read?.data {
                        let fits = bytes.count <= maxFileBytes
                        let aside = try fits ? keepAside(undecodable: bytes) : keepOversizedAside()
                        file = LocalSyncFile.salvage(fits ? bytes : bytes.prefix(maxFileBytes), now: LocalSyncFile.seconds(wallClock()))
                        let problem = fits ? "could not be decoded" : "was larger than its limit of \(maxFileBytes) bytes (maxFileBytes)"
                        reports.append("AppStateKit: the sync store \(path) \(problem); its bytes were kept at \(aside), and the \(file.slots.count) records read before the damage were kept in the new file")
                    }
                    base = nil
                }

                // 2. Check.
                let current = file.slots[key]
                if let expectedVersion {
                    switch current {
                    case let .damaged(damage):
                        throw SyncStoreError(.corruptRecord, key: key, detail: "the record in \(path) is damaged (\(damage.reason)), so its version can't be compared; write the key unconditionally to replace it")
                    case let .intact(record) where record.version != expectedVersion:
                        return .conflict(current: record)
                    case nil where expectedVersion != 0:
                        return .conflict(current: nil)
                    default:
                        break
                    }
                } else if case let .damaged(damage) = current {
                    reports.append(try keepAside(damage, key: key, because: "is replaced by a write"))
                }

                // 3. Write, collecting the tombstones past their retention. Every version in the
                // file is at most maxVersion (larger ones are damaged records), so the next one
                // can't overflow; a file that reached it is renumbered under a new epoch.
                var highest = max(file.sequence, loaded.highestKnownVersion)
                if highest >= LocalSyncFile.maxVersion { highest = file.sequence }
                if highest >= LocalSyncFile.maxVersion {
                    let (renumbered, dropped) = file.renumbered()
                    for (droppedKey, damage) in dropped where droppedKey != key {
                        reports.append(try keepAside(damage, key: droppedKey, because: "is dropped from the file, renumbered below its version"))
                    }
                    file = renumbered
                    highest = file.sequence
                    reports.append("AppStateKit: the sync store \(path) reached the highest version, \(LocalSyncFile.maxVersion), which only versions written by another program reach; its records were renumbered from 1 under a new epoch, which every process takes as a replacement")
                }
                let version = highest + 1
                let record = SyncRecord(key: key, value: value, version: version)
                let now = LocalSyncFile.seconds(wallClock())
                file.collectTombstones(now: now, retention: tombstoneRetention.components.seconds, keeping: key)
                file.commit(record, now: now)
                if file.epoch == nil { file.epoch = LocalSyncFile.newEpoch() }
                let stamp = try AtomicFileWriter.write(file.encoded(), to: path, durable: true, in: fileSystem)

                // 4. Publish: unless a reader already re-read the file after the rename.
                cache.withLock { contents in
                    if contents.stamp == base, contents.failure == nil, let stamp {
                        contents.install(file, stamp: stamp)
                    } else {
                        reports += contents.refresh()
                    }
                }
                return .committed(record)
            }
        } catch let error as SyncStoreError {
            throw error
        } catch {
            throw SyncStoreError(.ioFailure, key: key, detail: "\(error)")
        }
    }

    /// Saves a damaged record about to be replaced or dropped (`reason`) to a
    /// `.corrupt-record-<time>` sibling and returns the message to log.
    private func keepAside(_ damage: LocalSyncFile.Damage, key: String, because reason: String) throws -> String {
        let time = Int(Date().timeIntervalSince1970 * 1000)
        let aside = AtomicFileWriter.sibling(of: path, suffix: ".corrupt-record-\(time)-\(UInt32.random(in: 0...UInt32.max))")
        var data = Data("{\"key\":".utf8)
        data.append(try JSONEncoder().encode(key))
        data.append(contentsOf: ",\"record\":".utf8)
        data.append(damage.raw)
        data.append(contentsOf: "}\n".utf8)
        try AtomicFileWriter.write(data, to: aside, durable: true, in: fileSystem)
        return "AppStateKit: the damaged record of sync key \(LocalSyncFile.shown(key)) in \(path) (\(damage.reason)) \(reason); it was kept at \(aside)"
    }

    /// Saves the bytes of a store file that can't be decoded to a `.corrupt-<time>` sibling,
    /// durably, and returns the sibling's path.
    private func keepAside(undecodable bytes: Data) throws -> String {
        let time = Int(Date().timeIntervalSince1970 * 1000)
        let aside = AtomicFileWriter.sibling(of: path, suffix: ".corrupt-\(time)-\(UInt32.random(in: 0...UInt32.max))")
        try AtomicFileWriter.write(bytes, to: aside, durable: true, in: fileSystem)
        return aside
    }

    /// Keeps the file, too large to read, as a `.corrupt-<time>` sibling by a second hard link
    /// (nothing is copied) and returns the sibling's path. The commit then renames a new file
    /// over the old name.
    private func keepOversizedAside() throws -> String {
        let time = Int(Date().timeIntervalSince1970 * 1000)
        let target = try AtomicFileWriter.resolvingLinks(path, in: fileSystem)
        let aside = AtomicFileWriter.sibling(of: target, suffix: ".corrupt-\(time)-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try fileSystem.link(target, to: aside)
            try fileSystem.synchronizeDirectory(AtomicFileWriter.directory(of: aside))
        } catch {
            throw PersistenceError.system(error.code, subject: target, operation: "link to \(aside)")
        }
        return aside
    }

    /// What a commit needs from the cache, copied out under its lock.
    private struct Loaded {
        let file: LocalSyncFile
        let stamp: FileStamp?
        let failure: LocalSyncCache.Failure?
        let highestKnownVersion: Int64

        init(_ contents: LocalSyncCache) {
            file = contents.file
            stamp = contents.stamp
            failure = contents.failure
            highestKnownVersion = contents.highestKnownVersion
        }
    }
}
