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
/// - **Never destroys data:** an unreadable file is reported, reads return `nil`, and the next
///   write first moves the bytes aside to a `.corrupt-<time>` sibling.
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

    private let lock = Lock()
    private var cache = Cache()

    private struct Cache {
        var values: [String: PropertyListValue] = [:]
        var stamp: FileStamp?
        /// The file could not be decoded; its bytes must be moved aside before a write.
        var isCorrupt = false
    }

    /// Creates a store backed by the file at `path` (created on first write).
    public init(path: String, durability: Durability = .immediate) {
        self.path = path
        self.durability = durability
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

    private var lockPath: String { path + ".lock" }

    // MARK: UserDefaultsManaging

    /// The value stored for `key`, reloading first if another process changed the file.
    ///
    /// An unreadable file is reported through `Application.logger` and reads as empty.
    public func object(forKey key: String) -> Any? {
        do {
            return try value(forKey: key)
        } catch {
            Application.logger.error(error, message: "AppStateKit: cannot read \(path) for key \(key)")
            return nil
        }
    }

    /// Stores `value` durably; `nil` removes the key. Failures are reported through
    /// `Application.logger`; use ``write(_:forKey:)`` to handle them yourself.
    public func set(_ value: Any?, forKey key: String) {
        do {
            try write(value, forKey: key)
        } catch {
            Application.logger.error("\(error)")
        }
    }

    /// Removes the value for `key` durably.
    public func removeObject(forKey key: String) {
        set(nil, forKey: key)
    }

    // MARK: Throwing API

    /// The value stored for `key`.
    ///
    /// - Throws: ``PersistenceError`` when the file cannot be read or decoded.
    public func value(forKey key: String) throws -> Any? {
        try lock.withLock {
            try reloadIfChanged()
            if cache.isCorrupt {
                throw PersistenceError(.corruptData, subject: path, detail: "the store file cannot be decoded; it is kept and moved aside on the next write")
            }
            return cache.values[key]?.swiftValue
        }
    }

    /// Stores `value` (a property-list value) for `key`, or removes the key when `value` is `nil`.
    ///
    /// Returns once the change is on disk (see ``Durability``).
    ///
    /// - Throws: ``PersistenceError`` for a value that is not a property-list value or an I/O
    ///   failure (permission denied, read-only file system, disk full); the stored file is then
    ///   unchanged.
    public func write(_ value: Any?, forKey key: String) throws {
        let converted: PropertyListValue?
        if let value {
            guard let plist = PropertyListValue(value) else {
                throw PersistenceError(.encodingFailed, subject: key, detail: "\(type(of: value)) is not a property-list value")
            }
            converted = plist
        } else {
            converted = nil
        }
        try lock.withLock {
            try FileLock.withExclusiveLock(lockPath) {
                try reloadIfChanged()
                if cache.isCorrupt, FileStamp.of(path: path) != nil {
                    let aside = try AtomicFileWriter.moveAside(path)
                    Application.logger.error("AppStateKit: the store file \(path) could not be decoded; its bytes were kept at \(aside)")
                    cache = Cache()
                }
                var values = cache.values
                values[key] = converted
                let data: Data
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    data = try encoder.encode(values)
                } catch {
                    throw PersistenceError(.encodingFailed, subject: key, detail: "\(error)")
                }
                let stamp = try AtomicFileWriter.write(data, to: path, durable: durability == .immediate)
                cache.values = values
                cache.stamp = stamp
                cache.isCorrupt = false
            }
        }
    }

    /// Stores `newValue` for `key` (removing it for `nil`) only if the stored value still equals
    /// `expected` (`nil`: nothing stored), as one step no other thread or process interleaves
    /// with: the comparison and the write happen under the store's `flock`. Returns whether it
    /// stored. `StoredState`'s `update` is a compare-and-set loop over this.
    ///
    /// - Throws: ``PersistenceError`` when the file cannot be read or decoded (nothing is then
    ///   written), or as ``write(_:forKey:)`` does.
    func replaceValue(forKey key: String, ifEqualTo expected: Any?, with newValue: Any?) throws -> Bool {
        let expectedValue = try expected.map { expected in
            guard let plist = PropertyListValue(expected) else {
                throw PersistenceError(.encodingFailed, subject: key, detail: "\(type(of: expected)) is not a property-list value")
            }
            return plist
        }
        let converted = try newValue.map { value in
            guard let plist = PropertyListValue(value) else {
                throw PersistenceError(.encodingFailed, subject: key, detail: "\(type(of: value)) is not a property-list value")
            }
            return plist
        }
        return try lock.withLock {
            try FileLock.withExclusiveLock(lockPath) {
                try reloadIfChanged()
                if cache.isCorrupt {
                    throw PersistenceError(.corruptData, subject: path, detail: "the store file cannot be decoded; update changes nothing")
                }
                guard cache.values[key] == expectedValue else { return false }
                var values = cache.values
                values[key] = converted
                let data: Data
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    data = try encoder.encode(values)
                } catch {
                    throw PersistenceError(.encodingFailed, subject: key, detail: "\(error)")
                }
                let stamp = try AtomicFileWriter.write(data, to: path, durable: durability == .immediate)
                cache.values = values
                cache.stamp = stamp
                return true
            }
        }
    }

    /// Reads the value for `key`, throwing on an unreadable file (see ``value(forKey:)``).
    public func readObject(forKey key: String) throws -> Any? {
        try value(forKey: key)
    }

    /// Writes the value for `key`, throwing on failure (see ``write(_:forKey:)``).
    public func writeObject(_ value: Any?, forKey key: String) throws {
        try write(value, forKey: key)
    }

    /// Every key currently stored.
    public func keys() throws -> [String] {
        try lock.withLock {
            try reloadIfChanged()
            return cache.values.keys.sorted()
        }
    }

    /// Re-reads the file when its stamp changed. Called with `lock` held.
    private func reloadIfChanged() throws {
        let stamp = FileStamp.of(path: path)
        guard stamp != cache.stamp || (stamp == nil && !cache.values.isEmpty) else { return }
        guard stamp != nil, let data = try AtomicFileWriter.read(path) else {
            cache = Cache()
            return
        }
        cache.stamp = stamp
        do {
            cache.values = try JSONDecoder().decode([String: PropertyListValue].self, from: data)
            cache.isCorrupt = false
        } catch {
            cache.values = [:]
            cache.isCorrupt = true
        }
    }
}
