import AppStateKitCore
import Foundation

/// A durable, multi-process-safe key-value store in one JSON file (and, with
/// ``Layout/appendOnlyLog``, a log beside it): the default store behind
/// ``Application/StoredState`` on Linux, where an unsynchronised `UserDefaults.set` never
/// reaches the disk.
///
/// When ``set(_:forKey:)`` returns the value is on disk, and a crash at any moment leaves the
/// previous or the new value. Processes sharing the file lose nothing (each write takes an
/// `flock` on the `.lock` sibling and reads what others wrote first) and a read sees every write
/// acknowledged before it started; other programs' edits within a second. Writes of several
/// threads at once share one commit. Property-list values read back as the types written. A
/// file or log that can't be decoded is reported and moved aside to a `.corrupt-<time>` sibling
/// by the next write; an entry that can't be read affects only its own key.
///
/// ```swift
/// let store = FileKeyValueStore(path: "/var/lib/myapp/settings.json")
/// store.set(8080, forKey: "port")
/// store.object(forKey: "port") as? Int   // 8080, also in the next run
/// ```
///
/// Persistence.md describes durability, both layouts, compaction, symbolic links and hand edits.
public final class FileKeyValueStore: UserDefaultsManaging, Sendable {

    /// How hard a write works to reach stable storage before returning.
    public enum Durability: Sendable, Equatable {
        /// `fsync` what a write changes (the log; the file and its directory when they are
        /// replaced): survives `SIGKILL`, OS crashes and power loss.
        case immediate
        /// No `fsync`: survives `SIGKILL` and process crashes, not OS crashes or power loss.
        case processCrashSafe
    }

    /// The store's file.
    public let path: String
    let durability: Durability
    let layout: Layout

    let fileSystem: any FileSystem
    /// A log larger than both the file and this is compacted into the file.
    let compactionThreshold: Int
    /// The largest file or log this store reads (see ``ReadLimits``).
    let maximumFileSize: Int
    /// The sibling every writer `flock`s; its first 8 bytes hold the generation counter.
    let lockPath: String
    /// Moves on every change of the cache, so a value decoded from a read stays valid while it
    /// stands still (see ``ReadValidity``).
    let cacheChanges = AtomicWord(0)
    let locked: LockedBox<Locked>
    /// Writes waiting to share the next batch.
    let commits = CommitQueue()

    /// What the store's lock guards: the cache, whose every change moves ``cacheChanges``.
    struct Locked {
        let changes: AtomicWord.View
        var cache = Cache() {
            didSet { changes.incrementReleasing() }
        }
    }

    struct Cache {
        var entries: [String: StoreEntry] = [:]
        var stamp: FileStamp?
        /// Why the file as a whole could not be decoded; its bytes are moved aside before a write.
        var corruption: String?
        /// How far the log beside the file was applied to `entries`; `nil` when there is none.
        var log: StoreLogPosition?
        /// Whether `entries` still match the file without a `stat`.
        var freshness = FileFreshness()
    }

    /// Creates a store backed by the file at `path`, created with its directory on the first
    /// write; the `.lock` file (and, with ``Layout/appendOnlyLog``, the log) live beside it.
    public convenience init(path: String, durability: Durability = .immediate, layout: Layout = .singleFile) {
        self.init(path: path, durability: durability, layout: layout, fileSystem: POSIXFileSystem())
    }

    /// Creates a store backed by the file at `path` that reads a file or log of at most
    /// `maximumFileSize` bytes (a larger one is an error naming it, and nothing past the
    /// limit is read); the other initializer's limit is 64 MiB.
    public convenience init(path: String, durability: Durability = .immediate, layout: Layout = .singleFile, maximumFileSize: Int) {
        self.init(path: path, durability: durability, layout: layout, fileSystem: POSIXFileSystem(), maximumFileSize: maximumFileSize)
    }

    package init(
        path: String, durability: Durability = .immediate, layout: Layout = .singleFile, fileSystem: any FileSystem,
        compactionThreshold: Int = FileKeyValueStore.defaultCompactionThreshold,
        maximumFileSize: Int = ReadLimits.defaultMaximumFileSize
    ) {
        self.maximumFileSize = max(maximumFileSize, StoreLog.headerLength)
        self.path = path
        self.durability = durability
        self.layout = layout
        self.fileSystem = fileSystem
        self.compactionThreshold = compactionThreshold
        // Keyed by the file a link points to, so processes using the link and its target
        // exclude each other (a link that can't be followed: by the path, and writes fail).
        let target: String
        do {
            target = try AtomicFileWriter.resolvingLinks(path, in: fileSystem)
        } catch {
            target = path
        }
        self.lockPath = AtomicFileWriter.lockFile(of: target)
        self.locked = LockedBox(Locked(changes: cacheChanges.view))
    }

    /// The default file for a process: `$XDG_CONFIG_HOME/<name>/defaults.json`, falling back to
    /// `~/.config/<name>/defaults.json`, where `<name>` is ``Application/storageName``.
    public static var defaultPath: String {
        let base = XDGBaseDirectory.base("XDG_CONFIG_HOME", fallback: ".config")
        let name = StorageName.resolvedForDefaultLocation()
        return ((base as NSString).appendingPathComponent(name) as NSString).appendingPathComponent("defaults.json")
    }

    // MARK: UserDefaultsManaging

    /// The value stored for `key`; a file or an entry that can't be read is reported through
    /// `\.logger` and reads as `nil`.
    public func object(forKey key: String) -> Any? {
        do {
            return try readObject(forKey: key)
        } catch {
            Diagnostics.report(error: "AppStateKit: \(error)")
            return nil
        }
    }

    /// Stores `value` durably; `nil` removes the key. Failures are reported through
    /// `\.logger`; use ``writeObject(_:forKey:)`` to handle them yourself.
    public func set(_ value: Any?, forKey key: String) {
        do {
            try writeObject(value, forKey: key)
        } catch {
            Diagnostics.report(error: "AppStateKit: \(error)")
        }
    }

    // MARK: Throwing API

    /// The value stored for `key`, reloading first if the file changed.
    ///
    /// - Throws: ``PersistenceError`` when the file cannot be read (`permissionDenied`,
    ///   `ioFailure`, …), is not a JSON object (`corruptData`), or the entry for `key` is not a
    ///   valid tagged value (`corruptData`, naming the key and the problem).
    public func readObject(forKey key: String) throws -> Any? {
        try withCurrentCache { try object(key, in: $0) }
    }

    /// ``readObject(forKey:)`` and what ``isUnchanged(since:)`` checks before the caller reuses
    /// a value decoded from it.
    func readObjectForReuse(forKey key: String) throws -> (object: Any?, validity: ReadValidity) {
        try withCurrentCache { cache in
            (try object(key, in: cache), ReadValidity(cacheChange: cacheChanges.loadRelaxed(), freshness: cache.freshness))
        }
    }

    /// Runs `body` on the cache, reloaded first unless it is current, with the lock held; what
    /// the reload notes is logged after the lock (the logger may read this store).
    private func withCurrentCache<Result>(_ body: (borrowing Cache) throws -> Result) throws -> Result {
        var notes: [Note] = []
        defer { Self.log(notes) }
        return try locked.withLock { locked in
            // Only a reload changes the cache (and so moves ``cacheChanges``).
            if !locked.cache.freshness.isCurrent() { try reloadIfChanged(&locked.cache, &notes) }
            return try body(locked.cache)
        }
    }

    /// Whether a read made at `validity` would return the same object now, known without the
    /// lock: the cache is unchanged and its ``FileFreshness`` current. `false` when unsure.
    @inline(__always)
    func isUnchanged(since validity: ReadValidity?) -> Bool {
        guard let cacheChange = validity?.cacheChange else { return false }
        return cacheChanges.loadAcquiring() == cacheChange && validity?.freshness.isCurrent() == true
    }

    /// The state of the cache a read was answered from.
    struct ReadValidity: Sendable {
        let cacheChange: UInt64
        let freshness: FileFreshness
    }

    private func object(_ key: String, in cache: borrowing Cache) throws -> Any? {
        if let corruption = cache.corruption {
            throw PersistenceError(.corruptData, subject: path, detail: "\(corruption); the file is kept and moved aside by the next write")
        }
        if let corruption = cache.log?.corruption {
            throw PersistenceError(.corruptData, subject: path, detail: "\(corruption); the log is kept and moved aside by the next write")
        }
        switch cache.entries[key] {
        case nil: return nil
        case let .value(value)?: return value.swiftValue
        case let .damaged(_, problem)?:
            throw PersistenceError(.corruptData, key: key, path: path, detail: "\(problem); the entry is kept until this key is written")
        }
    }

    /// The JSON of `key`'s entry as of the last read when it has no type tag (a hand edit:
    /// `{"App/counter": 7}`); `nil` for a tagged value or no entry.
    func untaggedJSON(forKey key: String) -> Data? {
        guard case let .damaged(raw, _)? = locked.withLock({ $0.cache.entries[key] }) else { return nil }
        do {
            return try JSONCoders.encode(raw)
        } catch {
            return nil  // Not JSON after all (a number JSON can't hold): the entry stays damaged.
        }
    }

    /// Stores `value` (a property-list value) for `key`, or removes the key when `value` is `nil`;
    /// returns once the change is on disk (see ``Durability``).
    ///
    /// - Throws: ``PersistenceError`` for a value that is not a property-list value, a file that
    ///   cannot be read first, or an I/O failure (permission denied, read-only file system, disk
    ///   full); the store is then unchanged.
    public func writeObject(_ value: Any?, forKey key: String) throws {
        let converted = try value.map { try Self.propertyList($0, key: key, path: path) }
        try naming(key) { _ = try commit(.set(key: key, entry: converted.map(StoreEntry.value))) }
    }

    /// Stores `newValue` for `key` (removing it for `nil`) only if the stored value still equals
    /// `expected` (`nil`: nothing stored, or an entry that can't be read), compared and written
    /// under the `flock` every process takes to write. Returns whether it stored.
    func replaceValue(forKey key: String, ifEqualTo expected: Any?, with newValue: Any?) throws -> Bool {
        let expectedValue = try expected.map { try Self.propertyList($0, key: key, path: path) }
        let converted = try newValue.map { try Self.propertyList($0, key: key, path: path) }
        return try naming(key) { try commit(.replace(key: key, expected: expectedValue, entry: converted.map(StoreEntry.value))) }
    }

    /// Runs a write of `key`, so that a failure of the whole file names the key as well.
    private func naming<Result>(_ key: String, _ write: () throws -> Result) throws -> Result {
        do {
            return try write()
        } catch let error as PersistenceError where error.subject == path {
            throw PersistenceError(error.kind, errno: error.errno, key: key, path: path, detail: error.detail)
        }
    }

    private static func propertyList(_ value: Any, key: String, path: String) throws -> PropertyListValue {
        guard let plist = PropertyListValue(value) else {
            throw PersistenceError(.encodingFailed, key: key, path: path, detail: "\(type(of: value)) is not a property-list value")
        }
        return plist
    }

    /// Every key stored, sorted, including keys whose entry can't be read.
    public var keys: [String] {
        get throws {
            try withCurrentCache { $0.entries.keys.sorted() }
        }
    }

    /// A message collected under the lock, delivered after it (the logger may read this store).
    enum Note {
        case debug(String)
        case error(String)
    }

    static func log(_ notes: [Note]) {
        for note in notes {
            switch note {
            case let .debug(message): Diagnostics.report(debug: message)
            case let .error(message): Diagnostics.report(error: message)
            }
        }
    }
}
