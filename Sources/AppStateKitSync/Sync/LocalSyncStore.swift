import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// The embedded ``SyncStore``: processes on one machine share ``Application/SyncState`` values
/// through one JSON file, with nothing to set up.
///
/// A command-line tool and a server on the same machine that use the same file see each other's
/// writes:
///
/// ```swift
/// let store = LocalSyncStore(path: "/var/lib/myapp/sync.json")
/// let record = try await store.write(Data("true".utf8), forKey: "App/maintenance")
/// for await change in store.changeFeed() {   // in another process: the record above, at once
///     print(change)                            // changed(App/maintenance@1 (4 bytes))
/// }
/// ```
///
/// - **Durable:** ``write(_:forKey:)`` and ``compareAndSet(_:forKey:expectedVersion:)`` return
///   once the new file and its directory entry are flushed (`fsync`): a crash, `SIGKILL` or power
///   loss after that keeps the write. The file is replaced atomically (temporary file, `fsync`,
///   `rename`), so a crash at any moment leaves the previous or the new complete file.
/// - **Atomic across processes:** each commit holds an exclusive `flock` on the sibling `.lock`
///   file while it re-reads the file (when its stamp changed), checks the expected version,
///   assigns the next version and writes. Versions come from one sequence per file, so they
///   also order commits of different keys.
/// - **Fresh, cheaply:** ``cachedRecord(forKey:)`` answers from an in-memory copy after one
///   `stat`; it re-reads the file only when another process replaced it, and never waits for
///   the inter-process lock.
/// - **Change feeds:** ``changeFeed()`` delivers this process's commits as they are made and other
///   processes' commits as the store notices them (see ``ChangeDetection``: by default inotify,
///   within about a millisecond; idle, one wake-up a second). One watcher thread serves all of a
///   store's feeds and runs only while a feed is open.
/// - **Replacements:** deleting the file, or putting another file (or an older copy) in its
///   place, while processes run is noticed like any change: ``changeFeed()`` delivers a
///   ``SyncChange/replaced(_:)`` (the file's `epoch` changed, or its `sequence` went down), and
///   SyncStates take its values whatever their versions. A process that writes after the file
///   was deleted starts a new file with a new epoch.
/// - **Tombstones are collected:** a removal leaves a tombstone (a record without a value, with a
///   new version) so every process learns of it; a commit drops the tombstones older than
///   ``tombstoneRetention`` (7 days by default) from the file. Versions keep growing across a
///   collected key, and a process that missed both the removal and the collection hears of the
///   removal when it next reads the file.
/// - **Status:** ``statusUpdates()`` says whether the file reads; ``SyncStore/waitUntilReady(timeout:)``
///   returns once it did.
/// - **Never destroys data:** a file that is not a store file (or is larger than
///   ``maxFileBytes``) is reported through `\.logger`, its keys read as errors, and the next
///   write keeps it aside as a `.corrupt-<time>` sibling and carries over every record it can
///   still read. A damaged record — one whose checksum doesn't match, or whose version, time or
///   value is out of bounds — only affects its own key: it is kept as it is, its key reads as
///   an error, and an unconditional write of that key first saves the damaged record to a
///   `.corrupt-record-<time>` sibling. A file written by a newer AppStateKit is left untouched.
/// - **Hostile files:** any process that can write the directory can write the file, so the
///   store reads it with a strict, bounded decoder of its own: nothing in it can trap, nest
///   the decoder deeper than a few dozen frames, or make one record's damage another key's.
///
/// Every commit rewrites the whole file and costs two `fsync`s, so the store suits the small,
/// rarely written values SyncState is for (flags, switches, counters), not bulk data.
public final class LocalSyncStore: SyncStore {
    /// The store's file.
    public let path: String
    /// How the store notices other processes' writes.
    public let changeDetection: ChangeDetection
    /// How long a removed key's tombstone stays in the file: the first commit after that
    /// removes it (whole seconds count).
    public let tombstoneRetention: Duration
    /// The default ``tombstoneRetention``: 7 days, enough for every running process to have
    /// read the removal.
    public static let defaultTombstoneRetention: Duration = .seconds(7 * 24 * 3600)
    /// The largest file the store reads, in bytes. The file is shared with every process that
    /// can write its directory, so its size is checked before anything is allocated for it: a
    /// larger file is reported and not read (its keys read as errors), and the next write keeps
    /// it aside, as a `.corrupt-<time>` sibling, and starts a new file. Processes that share
    /// the file should agree on it.
    public let maxFileBytes: Int
    /// The default ``maxFileBytes``: 16 MiB, room for 16 values of the largest size
    /// (``SyncLimits/maxValueBytes``) and thousands of typical ones.
    public static let defaultMaxFileBytes = 16 << 20

    /// Where the file lives: the real file system unless a test passes another.
    let fileSystem: any FileSystem
    /// The time a tombstone is stamped with and compared to: the system's unless a test passes
    /// another.
    let wallClock: @Sendable () -> Date
    let cache: LockedBox<LocalSyncCache>
    /// Runs commits one at a time, off the cooperative thread pool (they may wait for another
    /// process's lock and for the disk).
    let commitQueue: DispatchQueue

    /// Creates a store backed by the file at `path` (created, with its directory, on the first
    /// write).
    ///
    /// - Parameters:
    ///   - path: The store's file.
    ///   - changeDetection: How the store notices other processes' commits (see
    ///     ``LocalSyncStore/ChangeDetection``).
    ///   - tombstoneRetention: How long a removed key's tombstone stays in the file; processes
    ///     that share the file should agree on it.
    public convenience init(
        path: String, changeDetection: ChangeDetection = .automatic, tombstoneRetention: Duration = LocalSyncStore.defaultTombstoneRetention
    ) {
        self.init(path: path, changeDetection: changeDetection, tombstoneRetention: tombstoneRetention, fileSystem: POSIXFileSystem())
    }

    /// Creates a store backed by the file at `path` that reads files of at most `maxFileBytes`
    /// bytes (see ``maxFileBytes``).
    ///
    /// - Parameters:
    ///   - path: The store's file.
    ///   - changeDetection: How the store notices other processes' commits.
    ///   - tombstoneRetention: How long a removed key's tombstone stays in the file.
    ///   - maxFileBytes: The largest file the store reads (at least 1 KiB is used); processes
    ///     that share the file should agree on it.
    public convenience init(
        path: String, changeDetection: ChangeDetection = .automatic, tombstoneRetention: Duration = LocalSyncStore.defaultTombstoneRetention,
        maxFileBytes: Int
    ) {
        self.init(
            path: path, changeDetection: changeDetection, tombstoneRetention: tombstoneRetention, maxFileBytes: maxFileBytes,
            fileSystem: POSIXFileSystem()
        )
    }

    /// Creates a store whose file lives in `fileSystem`, telling time by `wallClock`. Other
    /// processes' writes are then noticed by polling every ``ChangeDetection/fallbackInterval``
    /// (file notifications only see the real file system), unless `changeDetection` polls already.
    package init(
        path: String, changeDetection: ChangeDetection = .automatic, tombstoneRetention: Duration = LocalSyncStore.defaultTombstoneRetention,
        maxFileBytes: Int = LocalSyncStore.defaultMaxFileBytes, fileSystem: any FileSystem, wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.path = path
        self.changeDetection = changeDetection
        self.tombstoneRetention = tombstoneRetention
        self.maxFileBytes = min(max(maxFileBytes, 1024), Int.max / 2)
        self.fileSystem = fileSystem
        self.wallClock = wallClock
        cache = LockedBox(LocalSyncCache(path: path, fileSystem: fileSystem, maxFileBytes: self.maxFileBytes, wallClock: wallClock))
        commitQueue = DispatchQueue(label: "AppStateKit.LocalSyncStore.commits")
    }

    deinit {
        let (feeds, watcher) = cache.withLock { contents in
            defer { contents.watcher = nil }
            return (contents.feeds.removeAll(), contents.watcher)
        }
        watcher?.stop()
        for feed in feeds { feed.finish() }
    }

    /// The default file: `sync.json` in the directory of ``FileKeyValueStore/defaultPath``
    /// (`$XDG_CONFIG_HOME/<executable>/sync.json`, falling back to
    /// `~/.config/<executable>/sync.json`), so processes of one app share it.
    public static var defaultPath: String {
        let directory = (FileKeyValueStore.defaultPath as NSString).deletingLastPathComponent
        return (directory as NSString).appendingPathComponent("sync.json")
    }

    var lockPath: String { AtomicFileWriter.lockFile(of: path) }

    // MARK: Reading

    /// The record for `key` in the file as it is now: one `stat`, and a re-read only when
    /// another process replaced the file. Never waits for another process.
    ///
    /// - Throws: ``SyncStoreError`` of kind `invalidKey`; `corruptRecord` when the file or the
    ///   key's record can't be decoded; `ioFailure` when the file can't be read.
    public func cachedRecord(forKey key: String) throws -> SyncRecord? {
        try SyncLimits.check(key: key, value: nil)
        let (slot, failure, reports) = cache.withLock { contents in
            let reports = contents.refresh()
            return (contents.file.slots[key], contents.failure, reports)
        }
        log(reports)
        if let failure { throw error(for: failure, key: key) }
        switch slot {
        case nil:
            return nil
        case let .intact(record):
            return record
        case let .damaged(damage):
            throw SyncStoreError(.corruptRecord, key: key, detail: "the record in \(path) is damaged (\(damage.reason)); write the key to replace it (its bytes are saved aside first)")
        }
    }

    /// The record for `key` in the file: the same as ``cachedRecord(forKey:)``, since the file is
    /// the backing store.
    public func fetchRecord(forKey key: String) async throws -> SyncRecord? {
        try cachedRecord(forKey: key)
    }

    /// Every intact record in the file, tombstones included (until collected), sorted by key. Damaged records are
    /// left out (they are reported through `\.logger` when the file is read).
    ///
    /// - Throws: ``SyncStoreError`` of kind `corruptRecord` or `ioFailure` when the file can't be
    ///   used at all.
    public func snapshot() async throws -> [SyncRecord] {
        let (file, failure, reports) = cache.withLock { contents in
            let reports = contents.refresh()
            return (contents.file, contents.failure, reports)
        }
        log(reports)
        if let failure { throw error(for: failure, key: "") }
        return file.intactRecords
    }

    // MARK: Change feed

    /// A new feed of the records this store commits (delivered before the commit's call returns)
    /// and the records other processes commit to the same file (delivered once their file is in
    /// place, which can be just before the writer's final directory flush returns).
    ///
    /// Other processes' commits are noticed as ``changeDetection`` says; several commits of one
    /// key between two checks arrive as the newest one. When the file was replaced behind the
    /// store's back — deleted (another process's write then starts a new file), replaced by
    /// another file, or put back from an older copy — the feed delivers a
    /// ``SyncChange/replaced(_:)`` with every record of the new file (none for a deleted one),
    /// which consumers take whatever the versions. The file's `epoch` and `sequence` tell (see
    /// the file format in the guide). A file that can't be decoded is not a replacement:
    /// consumers keep their values until a write moves it aside.
    ///
    /// At most 1,024 changes wait for a slow consumer;
    /// past that they collapse into one ``SyncChange/replaced(_:)`` with the records this store
    /// holds when the consumer takes it (see ``SyncStore/changeFeed()``). The feed ends when the
    /// consuming task is cancelled or the store is deinitialised. The first feed starts the
    /// store's watcher thread; it stops when the last feed ends.
    public func changeFeed() -> AsyncStream<SyncChange> {
        let buffer = SyncChangeBuffer { [weak self] in self?.cachedRecords() ?? [] }
        subscribe(.changes(buffer))
        return buffer.makeStream()
    }

    /// The store's status after reading the file, then every change of it, as the watcher
    /// notices (a feed of statuses keeps the watcher running, as a change feed does):
    /// ``SyncStoreStatus/live(since:)`` while the file reads (a missing file is an empty store),
    /// ``SyncStoreStatus/unavailable(since:reason:)`` when it can't be read or decoded and was
    /// never read, ``SyncStoreStatus/stale(since:reason:)`` when it stopped being readable
    /// (consumers keep their last values). ``SyncStore/waitUntilReady(timeout:)`` waits on it.
    public func statusUpdates() -> AsyncStream<SyncStoreStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStoreStatus.self, bufferingPolicy: .bufferingNewest(SyncFeed.statusBuffer))
        let (status, reports) = cache.withLock { contents in
            let reports = contents.refresh()
            return (contents.status, reports)
        }
        log(reports)
        continuation.yield(status)
        subscribe(.statuses(continuation))
        return stream
    }

    /// Registers `feed` and starts the watcher if it is the first.
    private func subscribe(_ feed: SyncFeed) {
        let (token, reports) = cache.withLock { contents in
            // The baseline the feed's changes are measured from.
            let reports = contents.isLoaded ? [] : contents.refresh()
            return (contents.feeds.add(feed), reports)
        }
        log(reports)
        feed.onTermination { [weak self] in self?.endFeed(token) }
        // The watcher's thread has no task: it reports to the logger of the application that
        // opened the first feed.
        let logger = Application.logger
        let started: Result<Void, any Error> = cache.withLock { contents in
            guard contents.watcher == nil, !contents.feeds.isEmpty else { return .success(()) }
            do {
                // A link's target is replaced in its own directory: watch that one.
                let directory = AtomicFileWriter.directory(of: try AtomicFileWriter.resolvingLinks(path, in: fileSystem))
                let detection = fileSystem is POSIXFileSystem || changeDetection != .automatic
                    ? changeDetection : .polling(every: ChangeDetection.fallbackInterval)
                let watcher = try LocalSyncWatcher(directory: directory, changeDetection: detection) { [weak self] in
                    self?.refreshFromWatcher(logger: logger)
                }
                contents.watcher = watcher
                watcher.start(owner: self)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case let .failure(error) = started {
            Application.logger.error(error, "AppStateKit: the sync store \(path) cannot watch for other processes' writes; this feed gets only this process's")
        }
    }

    /// The intact records of the file as last read (no I/O): what a feed that fell behind gets
    /// as a replacement.
    private func cachedRecords() -> [SyncRecord] {
        cache.withLock { $0.file.intactRecords }
    }

    /// The watcher running now, if any (for tests).
    var watcher: LocalSyncWatcher? {
        cache.withLock { $0.watcher }
    }

    private func endFeed(_ token: UInt64) {
        let watcher: LocalSyncWatcher? = cache.withLock { contents in
            contents.feeds.remove(token)
            guard contents.feeds.isEmpty else { return nil }
            defer { contents.watcher = nil }
            return contents.watcher
        }
        watcher?.stop()
    }

    private func refreshFromWatcher(logger: ApplicationLogger) {
        for report in cache.withLock({ $0.refresh() }) { logger.error(report) }
    }

    // MARK: Helpers

    func log(_ reports: [String]) {
        for report in reports { Application.logger.error(report) }
    }

    func error(for failure: LocalSyncCache.Failure, key: String) -> SyncStoreError {
        switch failure {
        case let .unreadable(detail):
            SyncStoreError(.ioFailure, key: key, detail: "cannot read \(path): \(detail)")
        case let .unusable(.corrupt(detail)):
            SyncStoreError(.corruptRecord, key: key, detail: "the file \(path) cannot be decoded (\(detail)); it is kept and moved aside on the next write")
        case let .unusable(.tooLarge(bytes, limit)):
            SyncStoreError(.corruptRecord, key: key, detail: "the file \(path) has \(bytes) bytes or more, over this store's limit of \(limit) (maxFileBytes); it is not read, and the next write keeps it aside and starts a new file")
        case let .unusable(.unsupportedFormat(format)):
            SyncStoreError(.ioFailure, key: key, detail: "\(path) has format \(format), written by a newer AppStateKit; it is left untouched")
        }
    }
}
