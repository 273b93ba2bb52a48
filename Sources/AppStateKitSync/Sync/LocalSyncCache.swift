import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// A ``LocalSyncStore``'s in-memory copy of its file and its open change feeds, in a
/// `LockedBox`.
///
/// The lock is held to compare the file's stamp, to re-read and decode the file when it changed,
/// and to hand records to the feeds, so feeds receive records in the order the cache learned
/// them. A `yield` runs no consumer code, but it takes the runtime's lock of a waiting consumer
/// task to resume it; so nothing may wait for this lock while holding a task's (a feed's
/// termination handler runs on another thread, see ``SyncFeed/onTermination(_:)``). It is never
/// held while waiting for the inter-process lock, while writing or flushing the file, or while
/// logging.
struct LocalSyncCache {
    let path: String
    let fileSystem: any FileSystem
    /// The largest file read (see ``LocalSyncStore/maxFileBytes``).
    let maxFileBytes: Int
    /// What tombstone times in the file are checked against.
    let wallClock: @Sendable () -> Date
    /// The file as last read (empty when there is none or it is unusable).
    var file = LocalSyncFile.empty
    /// The stamp of the file `file` was read from (`nil`: there was no file).
    var stamp: FileStamp?
    /// Whether the file was read at least once.
    var isLoaded = false
    /// Why the file at `stamp` can't be used, if it can't.
    var failure: Failure?
    /// The highest version this process has seen in any version of the file, so a file
    /// started afresh (after a corrupt one was moved aside) continues above it.
    var highestKnownVersion: Int64 = 0
    /// The open feeds (of records, changes and statuses).
    var feeds = Subscribers<SyncFeed>()
    /// The store's status, as the last read of the file left it.
    var status: SyncStoreStatus = .starting
    /// The watcher, running while `feeds` is not empty.
    var watcher: LocalSyncWatcher?
    /// What was last reported about the file, so a damaged file or record is reported once
    /// per change rather than on every read.
    var reported: Set<String> = []

    /// Why the file can't be used.
    enum Failure: Sendable, Equatable {
        /// Reading it failed (retried on every access): the error's description.
        case unreadable(String)
        /// Its bytes are not a store file: the next write moves them aside.
        case unusable(LocalSyncFile.Unusable)
    }

    /// Re-reads the file when its stamp changed and hands the records that are newer than
    /// the cached ones to the feeds (nothing on the first read: nothing *changed* then).
    ///
    /// - Returns: Messages to log once the lock is released.
    mutating func refresh() -> [String] {
        let current: FileStamp?
        let data: Data?
        do {
            current = try FileStamp.ofExistingFile(atPath: path, in: fileSystem)
            if isLoaded, current == stamp, !isUnreadable { return [] }
        } catch {
            return unreadable(error)
        }
        do {
            data = current == nil ? nil : try Self.read(path, in: fileSystem, limit: maxFileBytes)
        } catch let error as LocalSyncFile.Unusable {
            return unusable(error, stamp: current)
        } catch {
            return unreadable(error)
        }
        let loaded: LocalSyncFile
        do {
            let now = LocalSyncFile.seconds(wallClock())
            loaded = try data.map { data throws(LocalSyncFile.Unusable) in try LocalSyncFile.decode(data, now: now) } ?? .empty
        } catch {
            return unusable(error, stamp: current)
        }
        failure = nil
        if !(status.isLive) { setStatus(.live(since: Date())) }
        var messages = loaded.problems.map { "AppStateKit: the sync store \(path) \($0)" }
        for (key, slot) in loaded.slots.sorted(by: { $0.key < $1.key }) {
            if case let .damaged(damage) = slot {
                messages.append("AppStateKit: the record of sync key \(LocalSyncFile.shown(key)) in \(path) is damaged (\(damage.reason)); its key reads as an error and the record is kept as it is until the key is written again, which replaces it (its bytes are saved aside first)")
            }
        }
        install(loaded, stamp: current)
        return report(messages, replacing: true)
    }

    /// Records that reading the file failed (retried on every access).
    private mutating func unreadable(_ error: any Error) -> [String] {
        failure = .unreadable("\(error)")
        stamp = nil
        setStatus(failing: "cannot read \(path): \(error)")
        return report(["AppStateKit: cannot read the sync store \(path): \(error)"], replacing: false)
    }

    /// Records that the file at `stamp` can't be used. Not a replacement: consumers keep the
    /// last values they had (the file's keys read as errors) until a write moves the file aside
    /// and starts a new one.
    private mutating func unusable(_ problem: LocalSyncFile.Unusable, stamp current: FileStamp?) -> [String] {
        failure = .unusable(problem)
        install(.empty, stamp: current, announce: false)
        setStatus(failing: Self.message(for: problem, path: path))
        return report([Self.message(for: problem, path: path)], replacing: false)
    }

    /// The bytes of the file at `path` (`nil`: none), at most `limit` of them: a larger file
    /// throws ``LocalSyncFile/Unusable/tooLarge(bytes:limit:)`` before more than `limit + 1`
    /// bytes are allocated, whatever its size said when it was opened.
    static func read(_ path: String, in fileSystem: any FileSystem, limit: Int) throws -> Data? {
        if let size = try FileStamp.ofExistingFile(atPath: path, in: fileSystem)?.size, size > Int64(limit) {
            throw LocalSyncFile.Unusable.tooLarge(bytes: size, limit: limit)
        }
        let read = try PersistenceError.naming(path) { try fileSystem.contents(of: path, from: 0, limit: limit + 1, for: path) }
        guard let data = read?.data else { return nil }
        if data.count > limit { throw LocalSyncFile.Unusable.tooLarge(bytes: Int64(data.count), limit: limit) }
        return data
    }

    /// Replaces the cached file, handing the records that changed to the feeds (unless
    /// `announce` is `false`). A file of another epoch, or whose sequence went down, is
    /// handed over whole, as a ``SyncChange/replaced(_:)``.
    mutating func install(_ new: LocalSyncFile, stamp newStamp: FileStamp?, announce: Bool = true) {
        if isLoaded, announce, file.isReplaced(by: new) {
            let replacement = SyncChange.replaced(new.intactRecords)
            for feed in feeds.all { feed.send(replacement) }
        } else if isLoaded, announce {
            // A key gone from the file was removed and its tombstone collected since the last
            // read: a removal for the feeds.
            var changed = file.missedRemovals(in: new)
            for (key, slot) in new.slots {
                guard case let .intact(record) = slot else { continue }
                if let old = file.slots[key]?.version, old >= record.version { continue }
                changed.append(record)
            }
            // Versions come from one sequence per file: this is the order of the commits.
            for record in changed.sorted(by: { $0.version < $1.version }) {
                for feed in feeds.all { feed.send(.changed(record)) }
            }
        }
        file = new
        stamp = newStamp
        isLoaded = true
        highestKnownVersion = max(highestKnownVersion, new.sequence)
    }

    /// Sets the status and tells the status feeds, if it changed.
    mutating func setStatus(_ new: SyncStoreStatus) {
        guard new != status else { return }
        status = new
        for feed in feeds.all { feed.send(new) }
    }

    /// The status after a failed read: `stale` when values were loaded before (consumers
    /// keep them), `unavailable` otherwise; kept as it is while the same problem lasts.
    mutating func setStatus(failing reason: String) {
        switch status {
        case let .stale(_, current) where current == reason, let .unavailable(_, current) where current == reason:
            return
        case .live, .stale:
            setStatus(.stale(since: Date(), reason: reason))
        case .starting, .unavailable, .stopped:
            setStatus(.unavailable(since: Date(), reason: reason))
        }
    }

    private var isUnreadable: Bool {
        if case .unreadable = failure { true } else { false }
    }

    /// The messages not reported yet. `replacing`: these are all that apply to the file now,
    /// so a problem that goes away and comes back is reported again.
    private mutating func report(_ messages: [String], replacing: Bool) -> [String] {
        let new = messages.filter { !reported.contains($0) }
        if replacing { reported = Set(messages) } else { reported.formUnion(messages) }
        return new
    }

    /// The message for a file that can't be used.
    static func message(for problem: LocalSyncFile.Unusable, path: String) -> String {
        switch problem {
        case let .corrupt(detail):
            "AppStateKit: the sync store \(path) cannot be decoded (\(detail)); its values read as errors until the next write moves the file aside to a .corrupt-<time> sibling"
        case let .tooLarge(bytes, limit):
            "AppStateKit: the sync store \(path) has \(bytes) bytes or more, over its limit of \(limit) (LocalSyncStore maxFileBytes); it is not read, its values read as errors until the next write keeps it aside as a .corrupt-<time> sibling and starts a new file, or until it is replaced by a smaller one"
        case let .unsupportedFormat(format):
            "AppStateKit: the sync store \(path) has format \(format), written by a newer AppStateKit (this one reads format \(LocalSyncFile.format)); it is left untouched and cannot be read or written"
        }
    }
}
