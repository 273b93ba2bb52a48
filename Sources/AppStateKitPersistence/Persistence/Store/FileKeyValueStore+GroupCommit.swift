import AppStateKitCore
import Foundation

/// Group commit: writes made at the same time by several threads share one read-modify-write
/// cycle — one `flock`, one reload, one file replacement or log record with its `fsync`s — and
/// each writer returns only once the batch holding its change is on disk. ``CommitQueue`` forms
/// the batches, in arrival order.
extension FileKeyValueStore {
    enum Change: Sendable {
        /// Store `entry` (remove the key for `nil`).
        case set(key: String, entry: StoreEntry?)
        /// Store `entry` only if the key's readable value still equals `expected`.
        case replace(key: String, expected: PropertyListValue?, entry: StoreEntry?)

        /// Applies the change to `changed`, the batch so far on top of `entries` (only read, so
        /// never copied); returns whether it applied.
        func apply(to changed: inout StoreLog.Batch, over entries: [String: StoreEntry]) -> Bool {
            switch self {
            case let .set(key, entry):
                changed.updateValue(entry, forKey: key)
                return true
            case let .replace(key, expected, entry):
                let stored = changed.index(forKey: key).map { changed.values[$0] } ?? entries[key]
                let current: PropertyListValue? = if case let .value(value)? = stored { value } else { nil }
                guard PropertyListValue.same(current, expected) else { return false }
                changed.updateValue(entry, forKey: key)
                return true
            }
        }
    }

    /// Commits `change`, alone or in a batch with changes of other threads; returns whether it
    /// applied (a ``Change/replace(key:expected:entry:)`` whose expectation failed did not).
    func commit(_ change: Change) throws -> Bool {
        try commits.submit(change) { batch in commitBatch(batch) }.get()
    }

    /// One read-modify-write cycle for `batch` under the shared `flock`: reads what other
    /// processes wrote, applies the changes in order and writes their result once. Nothing is
    /// written when the store can't be read (every change fails) or no change applied; a file
    /// that is not a JSON object is moved aside first; a batch that can't be encoded is
    /// committed change by change, so one bad value fails only its own write.
    func commitBatch(_ batch: [Change]) -> [Result<Bool, any Error>] {
        var notes: [Note] = []
        defer { Self.log(notes) }
        var applied = [Bool](repeating: false, count: batch.count)
        do {
            try FileLock.withExclusiveLock(lockPath, in: fileSystem) {
                let (changed, corruption, snapshot, log, mark, counter) = try locked.withLock { locked in
                    // The lock file exists now: map its counter if that hasn't happened yet.
                    locked.cache.freshness.attach(lockPath: lockPath, in: fileSystem, create: true)
                    let mark = locked.cache.freshness.mark()
                    try reloadIfChanged(&locked.cache, &notes)
                    let cache = locked.cache
                    // (With a corrupt file, `cache.entries` holds the log's records alone.)
                    var changed: StoreLog.Batch = [:]
                    for (index, change) in batch.enumerated() {
                        applied[index] = change.apply(to: &changed, over: cache.entries)
                    }
                    return (changed, cache.corruption, cache.stamp, cache.log, mark, cache.freshness.generation)
                }
                guard applied.contains(true) else { return }
                var snapshotStamp = snapshot
                if let corruption, try FileStamp.ofExistingFile(atPath: path, in: fileSystem) != nil {
                    let aside = try AtomicFileWriter.moveAside(path, in: fileSystem)
                    notes.append(.error("AppStateKit: corrupt data for \(path): \(corruption); the file was moved to \(aside)"))
                    notes.append(.debug("AppStateKit: moved corrupt data aside: \(path) → \(aside)"))
                    // (`moveAside` counted the change for other processes.)
                    locked.withLock { locked in
                        locked.cache.stamp = nil
                        locked.cache.corruption = nil
                        locked.cache.freshness.invalidate()
                    }
                    snapshotStamp = nil
                }
                let written = try writeBatch(changed, snapshot: snapshotStamp, log: log, notes: &notes)
                let previous = counter?.increment()
                locked.withLock { locked in
                    // In place: nothing else holds the dictionary, so this costs the batch's size.
                    StoreLog.apply([changed], to: &locked.cache.entries)
                    locked.cache.stamp = written.snapshot
                    locked.cache.corruption = nil
                    locked.cache.log = written.log
                    locked.cache.freshness.recordOwnWrite(after: mark, previous: previous)
                }
            }
        } catch is BatchEncodingFailure where batch.count > 1 {
            return batch.map { commitBatch([$0]).first! }
        } catch let error as BatchEncodingFailure {
            return [.failure(error.error)]
        } catch {
            return batch.map { _ in .failure(error) }
        }
        return applied.map { .success($0) }
    }

    /// Encoding a batch failed; `error` is what a write of that batch alone reports.
    struct BatchEncodingFailure: Error {
        let error: PersistenceError
    }
}
