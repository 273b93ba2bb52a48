import Foundation

/// The registry entry behind an ``Application/FileState``: where the file lives, how it is
/// encoded, its initial value, and a cache of the last decoded value keyed by the file's stamp
/// (so a read costs one `stat` unless the file changed — in this process or another).
final class FileStateEntry<Value: Codable & Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `cache`, `corruptStamp` and `lastReported` are only accessed while `lock` is held;
    // everything else is immutable.
    let directory: String
    let filename: String
    let isBase64Encoded: Bool
    let initial: Value
    /// Why the file name was refused, if it was.
    let filenameProblem: PersistenceError?
    private let lock = Lock()
    private var cache: (stamp: FileStamp, value: Value)?
    /// The stamp of a file found undecodable: its bytes are moved aside before the next write.
    private var corruptStamp: FileStamp?
    private var lastReported: String?
    /// Held while the value is written or mutated in place (see `PersistedEntry`).
    let modification = ModificationLock()

    init(key: EntryKey, directory: String, filename: String, isBase64Encoded: Bool, initial: Value) {
        self.directory = directory
        self.filename = filename
        self.isBase64Encoded = isBase64Encoded
        self.initial = initial
        self.filenameProblem = FileStateEntry.validate(filename: filename, directory: directory)
        super.init(key: key)
    }

    override var kindName: String { "FileState" }
    override var valueTypeName: String { String(reflecting: Value.self) }
    override var valueDescription: String { String(describing: value) }

    /// `directory/filename`.
    var filePath: String { (directory as NSString).appendingPathComponent(filename) }

    private var fileManager: any FileManaging { Application.dependency(\.fileManager) }

    /// The file's value, or the initial value when there is no file.
    func read() throws -> Value {
        trackAccess()
        if let filenameProblem { throw filenameProblem }
        let files = fileManager
        let path = filePath
        guard let stamp = try files.existingStamp(ofFile: path) else {
            lock.withLock { cache = nil }
            return initial
        }
        if let cached = lock.withLock({ cache }), cached.stamp == stamp { return cached.value }
        guard let data = try files.contents(ofFile: path) else { return initial }
        do {
            let value = try FileStateCodec.decode(data, as: Value.self, path: path)
            lock.withLock {
                cache = (stamp, value)
                corruptStamp = nil
            }
            return value
        } catch {
            lock.withLock { corruptStamp = stamp }
            throw error
        }
    }

    /// Writes `newValue` atomically; an optional holding `nil` deletes the file.
    func write(_ newValue: Value) throws {
        if let filenameProblem { throw filenameProblem }
        let files = fileManager
        let path = filePath
        try notifyingObservers {
            try preserveCorruptFile(files, path: path)
            if let optional = newValue as? any OptionalValue, optional.wrappedAny == nil {
                try files.removeFile(path)
                lock.withLock { cache = nil }
                return
            }
            let data = try FileStateCodec.encode(newValue, base64Encoded: isBase64Encoded, path: path)
            let stamp = try files.writeAtomicallyWithStamp(data, toFile: path)
            lock.withLock { cache = stamp.map { ($0, newValue) } }
        }
    }

    /// Deletes the file so reads return the initial value.
    func remove() throws {
        if let filenameProblem { throw filenameProblem }
        let files = fileManager
        let path = filePath
        try notifyingObservers {
            try preserveCorruptFile(files, path: path)
            try files.removeFile(path)
            lock.withLock { cache = nil }
        }
    }

    /// The value, or the initial value after reporting why the file can't be used.
    var value: Value {
        do {
            let value = try read()
            lock.withLock { lastReported = nil }
            return value
        } catch {
            report(error)
            return initial
        }
    }

    /// Reports `error` through the logger, once per distinct message in a row.
    func report(_ error: any Error) {
        let message = "AppStateKit: \(error)"
        let isNew = lock.withLock {
            defer { lastReported = message }
            return lastReported != message
        }
        if isNew { Application.logger.error(message) }
    }

    /// Moves an undecodable file aside before it is replaced or removed, so its bytes are never
    /// lost — also when this process never read it (a file edited by hand, or written by an
    /// older version of the program with another type).
    ///
    /// Costs nothing when the file is the one this entry last read or wrote (same stamp);
    /// otherwise the file is read and decoded once.
    private func preserveCorruptFile(_ files: any FileManaging, path: String) throws {
        guard let stamp = try files.existingStamp(ofFile: path) else {
            lock.withLock { corruptStamp = nil }
            return
        }
        let (cachedStamp, knownCorrupt) = lock.withLock { (cache?.stamp, corruptStamp) }
        guard stamp != cachedStamp else { return }
        var problem: (any Error)?
        if stamp == knownCorrupt {
            problem = PersistenceError(.corruptData, subject: path, detail: "the file did not decode when it was read")
        } else if let data = try files.contents(ofFile: path) {
            do {
                _ = try FileStateCodec.decode(data, as: Value.self, path: path)
            } catch {
                problem = error
            }
        }
        if let problem {
            let aside = try files.moveAside(path)
            Application.logger.error("AppStateKit: \(problem); the file was moved to \(aside)")
            Application.logger.debug("AppStateKit: moved corrupt data aside: \(path) → \(aside)")
        }
        lock.withLock { corruptStamp = nil }
    }

    /// Why `filename` can't be used, or `nil`: it must be one path component.
    static func validate(filename: String, directory: String) -> PersistenceError? {
        let component = "a file name must be a single path component"
        let problem: String? = if filename.isEmpty {
            "the file name is empty; \(component)"
        } else if filename == "." || filename == ".." {
            "\"\(filename)\" is not a file name; \(component)"
        } else if filename.contains("/") {
            "\"\(filename)\" contains \"/\"; pass directories in `path:`; \(component)"
        } else if filename.utf8.contains(0) {
            "the file name contains a NUL byte; \(component)"
        } else if filename.utf8.count > AtomicFileWriter.maximumNameLength {
            "the file name is \(filename.utf8.count) bytes long; the limit is \(AtomicFileWriter.maximumNameLength)"
        } else {
            nil
        }
        return problem.map { PersistenceError(.invalidFilename, subject: "FileState in \(directory)", detail: $0) }
    }
}
