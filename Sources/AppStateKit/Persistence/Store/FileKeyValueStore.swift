import Foundation

/// A durable, multi-process-safe key-value store in one JSON file: the default store behind
/// ``Application/StoredState`` on Linux.
///
/// It fixes what `UserDefaults` gets wrong for servers and command-line tools on Linux, where an
/// unsynchronised `set` never reaches the disk:
///
/// - **Durable:** when ``set(_:forKey:)`` returns, the value is on disk. The file is replaced
///   atomically (temporary file, `fsync`, `rename`, directory `fsync`), so a crash or `SIGKILL`
///   at any moment leaves the previous or the new complete file.
/// - **Multi-process safe:** each write takes an exclusive `flock` on a sibling `.lock` file and
///   re-reads the file first, so concurrent processes writing different keys lose nothing.
/// - **Fresh:** each read checks the file's stamp (one `stat`) and reloads after another
///   process wrote it.
/// - **Typed:** property-list values (`Bool`, `Int`, `Double`, `Float`, `String`, `Data`, `Date`,
///   `URL`, arrays and dictionaries of them) are written with a type tag and read back as the
///   same types.
/// - **Never destroys data:** a file that is not a JSON object is reported, reads return `nil`,
///   and the next write first moves the bytes aside to a `.corrupt-<time>` sibling. One entry
///   that can't be read (an unknown type tag, `{"int": 1.5}`) only affects its own key: reading
///   that key throws (or reports and returns `nil`), every other key reads normally, and the
///   entry is kept as it is until that key is written. A write that can't read the current
///   file fails and changes nothing.
/// - **Symbolic links stay:** when the path is a link, writes replace the file it points to.
///
/// ```swift
/// let store = FileKeyValueStore(path: "/var/lib/myapp/settings.json")
/// store.set(8080, forKey: "port")
/// store.object(forKey: "port") as? Int   // 8080, also in the next run
/// ```
///
/// Writes cost two `fsync`s (a few hundred to a few thousand per second, depending on the
/// disk). Pass ``Durability/processCrashSafe`` to skip them: values then survive the process
/// being killed but not an OS crash or power loss.
public final class FileKeyValueStore: UserDefaultsManaging, @unchecked Sendable {
    // Safe: `cache` is only accessed while `lock` is held; the other properties are immutable.

    /// How hard a write works to reach stable storage before returning.
    public enum Durability: Sendable, Equatable {
        /// `fsync` the file and its directory: survives `SIGKILL`, OS crashes and power loss.
        case immediate
        /// No `fsync`: survives `SIGKILL` and process crashes, not OS crashes or power loss.
        case processCrashSafe
    }

    /// The store's file.
    public let path: String
    /// The durability of writes.
    public let durability: Durability

    /// Where the file lives: the real file system unless a test passes another.
    let fileSystem: any FileSystem
    /// Whether `fileSystem` is the real one: the freshness check on every read then calls it
    /// directly instead of through the existential (as fast as before the seam existed).
    private let isPOSIX: Bool
    private let lockPath: String
    private let lock = Lock()
    private var cache = Cache()

    private struct Cache {
        var entries: [String: StoreEntry] = [:]
        var stamp: FileStamp?
        /// Why the file as a whole could not be decoded; its bytes are moved aside before a write.
        var corruption: String?
    }

    /// Creates a store backed by the file at `path` (created on first write).
    public convenience init(path: String, durability: Durability = .immediate) {
        self.init(path: path, durability: durability, fileSystem: POSIXFileSystem())
    }

    /// Creates a store whose file lives in `fileSystem`.
    package init(path: String, durability: Durability = .immediate, fileSystem: any FileSystem) {
        self.path = path
        self.durability = durability
        self.fileSystem = fileSystem
        self.isPOSIX = fileSystem is POSIXFileSystem
        self.lockPath = AtomicFileWriter.sibling(of: path, suffix: ".lock")
    }

    /// The default file for a process: `$XDG_CONFIG_HOME/<name>/defaults.json`, falling back to
    /// `~/.config/<name>/defaults.json`, where `<name>` is ``Application/storageName``.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let base: String
        if let configHome = environment["XDG_CONFIG_HOME"], configHome.hasPrefix("/") {
            base = configHome
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = (home as NSString).appendingPathComponent(".config")
        }
        let name = StorageName.resolvedForDefaultLocation()
        return ((base as NSString).appendingPathComponent(name) as NSString).appendingPathComponent("defaults.json")
    }

    // MARK: UserDefaultsManaging

    /// The value stored for `key`, reloading first if another process changed the file.
    ///
    /// A file or an entry that can't be read is reported through `Application.logger` and the
    /// key reads as `nil`.
    public func object(forKey key: String) -> Any? {
        do {
            return try value(forKey: key)
        } catch {
            Diagnostics.report(error: "AppStateKit: \(error)")
            return nil
        }
    }

    /// Stores `value` durably; `nil` removes the key. Failures are reported through
    /// `Application.logger`; use ``write(_:forKey:)`` to handle them yourself.
    public func set(_ value: Any?, forKey key: String) {
        do {
            try write(value, forKey: key)
        } catch {
            Diagnostics.report(error: "AppStateKit: \(error)")
        }
    }

    /// Removes the value for `key` durably.
    public func removeObject(forKey key: String) {
        set(nil, forKey: key)
    }

    // MARK: Throwing API

    /// The value stored for `key`.
    ///
    /// - Throws: ``PersistenceError`` when the file cannot be read (`permissionDenied`,
    ///   `ioFailure`, …), is not a JSON object (`corruptData`), or the entry for `key` is not a
    ///   valid tagged value (`corruptData`, naming the key and the problem).
    public func value(forKey key: String) throws -> Any? {
        var notes: [Note] = []
        defer { Self.log(notes) }
        return try lock.withLock {
            try reloadIfChanged(&notes)
            if let corruption = cache.corruption {
                throw PersistenceError(.corruptData, subject: path, detail: "\(corruption); the file is kept and moved aside by the next write")
            }
            switch cache.entries[key] {
            case nil: return nil
            case let .value(value)?: return value.swiftValue
            case let .damaged(_, problem)?:
                throw PersistenceError(.corruptData, subject: Self.subject(key: key, path: path), detail: "\(problem); the entry is kept until this key is written")
            }
        }
    }

    /// Stores `value` (a property-list value) for `key`, or removes the key when `value` is `nil`.
    ///
    /// Returns once the change is on disk (see ``Durability``).
    ///
    /// - Throws: ``PersistenceError`` for a value that is not a property-list value, a file that
    ///   cannot be read first, or an I/O failure (permission denied, read-only file system, disk
    ///   full); the stored file is then unchanged.
    public func write(_ value: Any?, forKey key: String) throws {
        let converted: PropertyListValue?
        if let value {
            guard let plist = PropertyListValue(value) else {
                throw PersistenceError(.encodingFailed, subject: Self.subject(key: key, path: path), detail: "\(type(of: value)) is not a property-list value")
            }
            converted = plist
        } else {
            converted = nil
        }
        try modifyEntries { entries in
            entries[key] = converted.map(StoreEntry.value)
        }
    }

    /// Stores `newValue` for `key` (removing it for `nil`) only if the stored value still equals
    /// `expected` (`nil`: nothing stored, or an entry that can't be read), as one step no other
    /// thread or process interleaves with: a ``modifyEntries(_:)`` cycle. Returns whether it
    /// stored. `StoredState`'s `update` is a compare-and-set loop over this.
    ///
    /// - Throws: As ``write(_:forKey:)`` does; nothing is written then.
    func replaceValue(forKey key: String, ifEqualTo expected: Any?, with newValue: Any?) throws -> Bool {
        struct Changed: Error {}
        let expectedValue = try expected.map { try Self.propertyList($0, key: key, path: path) }
        let converted = try newValue.map { try Self.propertyList($0, key: key, path: path) }
        do {
            try modifyEntries { entries in
                let current: PropertyListValue? = if case let .value(value)? = entries[key] { value } else { nil }
                // Compared as text too: `==` never holds for a NaN, which would retry forever.
                guard current == expectedValue || String(reflecting: current) == String(reflecting: expectedValue) else {
                    throw Changed()
                }
                entries[key] = converted.map(StoreEntry.value)
            }
            return true
        } catch is Changed {
            return false
        }
    }

    private static func propertyList(_ value: Any, key: String, path: String) throws -> PropertyListValue {
        guard let plist = PropertyListValue(value) else {
            throw PersistenceError(.encodingFailed, subject: subject(key: key, path: path), detail: "\(type(of: value)) is not a property-list value")
        }
        return plist
    }

    /// Reads the value for `key`, throwing on an unreadable file (see ``value(forKey:)``).
    public func readObject(forKey key: String) throws -> Any? {
        try value(forKey: key)
    }

    /// Writes the value for `key`, throwing on failure (see ``write(_:forKey:)``).
    public func writeObject(_ value: Any?, forKey key: String) throws {
        try write(value, forKey: key)
    }

    /// Every key currently stored, including keys whose entry can't be read.
    public func keys() throws -> [String] {
        var notes: [Note] = []
        defer { Self.log(notes) }
        return try lock.withLock {
            try reloadIfChanged(&notes)
            return cache.entries.keys.sorted()
        }
    }

    /// One read-modify-write cycle: holding this store's lock and the `flock` every process
    /// shares, reloads the file, lets `change` edit the entries, and writes the result.
    ///
    /// Nothing is written when the file can't be read (the error is thrown) or `change` throws.
    /// A file that is not a JSON object is moved aside first.
    func modifyEntries(_ change: (inout [String: StoreEntry]) throws -> Void) throws {
        var notes: [Note] = []
        defer { Self.log(notes) }
        try lock.withLock {
            try FileLock.withExclusiveLock(lockPath, in: fileSystem) {
                try reloadIfChanged(&notes)
                var entries = cache.entries
                if let corruption = cache.corruption, try FileStamp.ofExistingFile(atPath: path, in: fileSystem) != nil {
                    let aside = try AtomicFileWriter.moveAside(path, in: fileSystem)
                    notes.append(.error("AppStateKit: corrupt data for \(path): \(corruption); the file was moved to \(aside)"))
                    notes.append(.debug("AppStateKit: moved corrupt data aside: \(path) → \(aside)"))
                    entries = [:]
                }
                try change(&entries)
                let data: Data
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    data = try encoder.encode(entries)
                } catch {
                    throw PersistenceError(.encodingFailed, subject: path, detail: shortDescription(of: error))
                }
                let stamp = try AtomicFileWriter.write(data, to: path, durable: durability == .immediate, in: fileSystem)
                cache = Cache(entries: entries, stamp: stamp, corruption: nil)
            }
        }
    }

    /// Re-reads the file when its stamp changed. Called with `lock` held; a failure leaves the
    /// cache as it was and throws. Debug messages are added to `notes`, to be logged after the
    /// lock is released.
    private func reloadIfChanged(_ notes: inout [Note]) throws {
        let stamp = isPOSIX
            ? try FileStamp.ofExistingFile(atPath: path, in: POSIXFileSystem())
            : try FileStamp.ofExistingFile(atPath: path, in: fileSystem)
        guard stamp != cache.stamp || (stamp == nil && !cache.entries.isEmpty) else { return }
        guard stamp != nil, let data = try AtomicFileWriter.read(path, in: fileSystem) else {
            cache = Cache()
            return
        }
        var reloaded = Cache(stamp: stamp)
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            reloaded.corruption = "the file is empty"
        } else {
            do {
                reloaded.entries = try JSONDecoder().decode([String: StoreEntry].self, from: data)
            } catch {
                reloaded.corruption = "the file is not a JSON object of entries (\(shortDescription(of: error)))"
            }
        }
        cache = reloaded
        let damaged = reloaded.entries.values.filter { if case .damaged = $0 { true } else { false } }.count
        let count = reloaded.entries.count
        let summary = reloaded.corruption == nil ? "\(count) \(count == 1 ? "key" : "keys"), \(damaged) unreadable" : "corrupt"
        notes.append(.debug("AppStateKit: reloaded the store \(path) (\(summary))"))
    }

    /// How messages name one key of a store file: `key "App/port" in /path/defaults.json`.
    static func subject(key: String, path: String) -> String {
        "key \"\(key)\" in \(path)"
    }

    /// A message collected while the lock is held, delivered after it is released (the logger
    /// is user code and may read this store).
    private enum Note {
        case debug(String)
        case error(String)
    }

    /// Delivers messages collected under the lock.
    private static func log(_ notes: [Note]) {
        guard !notes.isEmpty else { return }
        for note in notes {
            switch note {
            case let .debug(message): Diagnostics.report(debug: message)
            case let .error(message): Diagnostics.report(error: message)
            }
        }
    }
}
