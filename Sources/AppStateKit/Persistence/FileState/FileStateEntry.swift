import Foundation

/// The registry entry behind an ``Application/FileState``: where the file lives, how it is
/// encoded, its initial value, and a cache of the last decoded value keyed by the file's stamp
/// and its generation counter (so a read costs a few atomic loads and no lock unless the file
/// changed — in this process or another; see `FileStateFreshness` and ``KeptFileRead``). It reads
/// and writes through the `\.fileManager` of the application that owns it (see ``EntryOwner``):
/// the files it can examine itself (``LocalFiles``), or a file manager of the user's, read with
/// `in` on every read and written with `out` and `delete`.
final class FileStateEntry<Value: Codable & Sendable>: PersistedEntry<Value>, @unchecked Sendable {
    // Safe: `cache` and `corruptStamp` are only accessed while `lock` (the base class's) is held;
    // `kept` synchronises itself; everything else is immutable.
    let directory: String
    let filename: String
    let isBase64Encoded: Bool
    /// `directory/filename`, joined once (every read and write uses it).
    let filePath: String
    /// Why the file name was refused, if it was.
    let filenameProblem: PersistenceError?
    private var cache: Cached?
    /// The stamp of a file found undecodable: its bytes are moved aside before the next write.
    private var corruptStamp: FileStamp?
    /// Whether `cache` is still the file's without a `stat`: the file's generation counter.
    private let freshness = FileStateFreshness()
    /// The value the last check of the file found (``initial`` for no file) and what vouches
    /// that it is still the file's; nothing published: check the file. Read without a lock.
    private let kept = ReadMostlyReference<KeptFileRead<Value>>()
    /// The application's `\.fileManager` operations as last resolved, while still current.
    private let fileManagerMemo = DependencyMemo<ResolvedFiles>()

    init(key: EntryKey, directory: String, filename: String, isBase64Encoded: Bool, initial: Value, owner: EntryOwner) {
        self.directory = directory
        self.filename = filename
        self.isBase64Encoded = isBase64Encoded
        self.filePath = (directory as NSString).appendingPathComponent(filename)
        self.filenameProblem = FileStateEntry.validate(filename: filename, directory: directory)
        super.init(key: key, initial: initial, owner: owner)
    }

    override var kindName: String { "FileState" }

    /// The file the entry actually uses: in an isolated application, inside its sandbox.
    override var loggedName: String { resolvedPath }

    /// The owning application's `\.fileManager` (in an isolated application, its sandbox).
    var resolvedFiles: ResolvedFiles {
        if let memoized = owner.memoized(fileManagerMemo) { return memoized }
        return owner.dependency(\.fileManager, memo: fileManagerMemo, for: "FileState \(filePath)") { ResolvedFiles($0) }
    }

    /// The path the file manager actually uses for the file: inside the sandbox for an isolated
    /// application, `filePath` otherwise.
    var resolvedPath: String {
        resolvedFiles.local?.mapped(filePath) ?? filePath
    }

    /// The file's value, or the initial value when there is no file: first the value an earlier
    /// read kept, while it is still current (see ``KeptFileRead``).
    override func read() throws -> Value {
        try read(keptIn: kept) { try readCheckingFile() }
    }

    /// The file's value, or the initial value when there is no file.
    ///
    /// - Parameter checkingFile: Check the file's stamp even when the value kept says nothing
    ///   changed. `update` needs it: its stamp comparison assumes the value read is at least as
    ///   new as the stamp it took first, and a write whose rename is done but whose count is
    ///   not yet would break that.
    func read(checkingFile: Bool) throws -> Value {
        guard checkingFile else { return try read() }
        trackAccess()
        return try readCheckingFile()
    }

    /// The rest of ``read()``, out of line (so the check before it needs no type metadata
    /// beyond `Value`'s): checks the file's stamp, decodes it when it changed, and keeps the
    /// value with what vouches for it.
    @inline(never)
    private func readCheckingFile() throws -> Value {
        if let filenameProblem { throw filenameProblem }
        let (resolved, collaborator) = owner.resolution(\.fileManager, memo: fileManagerMemo, for: "FileState \(filePath)") {
            ResolvedFiles($0)
        }
        guard let files = resolved.local else { return try readThrough(resolved.manager) }
        let path = filePath
        let mark = freshness.mark(for: files, path: path)
        guard let stamp = try files.existingStamp(ofFile: path) else {
            let check = freshness.record(mark, for: files)
            keepCurrent(initial, check, collaborator) { $0 = nil }
            return initial
        }
        if let cached = lock.withLock({ cache }), cached.stamp == stamp {
            let check = freshness.record(mark, for: files)
            keepCurrent(cached.value, check, collaborator) { _ in }
            return cached.value
        }
        guard let data = try files.contents(ofFile: path) else { return initial }
        do {
            let value = try FileStateCodec.decode(data, as: Value.self, path: path)
            let check = freshness.record(mark, for: files)
            keepCurrent(value, check, collaborator) {
                $0 = Cached(stamp: stamp, value: value)
                corruptStamp = nil
            }
            return value
        } catch {
            lock.withLock { corruptStamp = stamp }
            throw error
        }
    }

    /// The value a file manager of the user's reads with `in`, or the initial value when it says
    /// there is no file (see ``FileManaging``); its other errors are thrown, naming the path.
    private func readThrough(_ manager: any FileManaging) throws -> Value {
        do {
            return try manager.in(path: directory, filename: filename)
        } catch {
            if FileManagerErrors.isAbsence(error) { return initial }
            throw FileManagerErrors.naming(error, path: filePath)
        }
    }

    /// Writes `newValue` with a file manager of the user's: `out`, or `delete` for an optional
    /// holding `nil`.
    private func writeThrough(_ manager: any FileManaging, _ newValue: Value) throws {
        do {
            if let optional = newValue as? any OptionalValue, optional.wrappedAny == nil {
                try manager.delete(path: directory, filename: filename)
            } else {
                try manager.out(newValue, path: directory, filename: filename, base64Encoded: isBase64Encoded)
            }
        } catch {
            throw FileManagerErrors.naming(error, path: filePath)
        }
    }

    /// Keeps `value` for the next reads when `check` and `collaborator` vouch for it (otherwise
    /// they check the file), and applies `update` to the cache under the lock. What was kept
    /// before is released outside every lock, once no read uses it (its deinit may run user code).
    private func keepCurrent(
        _ value: Value, _ check: FileStateFreshness.Check?, _ collaborator: DependencyMemo<ResolvedFiles>.Resolved?,
        _ update: (inout Cached?) -> Void
    ) {
        lock.withLock { update(&cache) }
        if let check, let collaborator {
            kept.replace(with: KeptFileRead(collaborator: collaborator, check: check, value: value))
        } else {
            kept.clear()
        }
    }

    /// Takes note of `stamp`, found by a `stat` outside the read path (a change stream's poll):
    /// when it is not the stamp of the value reads keep, nor of a file found undecodable, the
    /// file changed without moving its counter (another program, an editor), and reads would
    /// not look until their check is ``FileFreshness/revalidationInterval`` old. Moving the
    /// counter makes the next read check the file, also one that raced with the `stat`.
    func stampFound(_ stamp: FileStamp?) {
        let isKnown = lock.withLock { stamp == cache?.stamp || (stamp != nil && stamp == corruptStamp) }
        if !isKnown, !freshness.announceChange() { kept.clear() }
    }

    /// The file's ``ExternalVersion``: its stamp (taking note of it, see ``stampFound(_:)``),
    /// or, with a file manager of the user's, the JSON of the value it reads.
    func fileVersion() throws -> ExternalVersion {
        let resolved = resolvedFiles
        guard let files = resolved.local else {
            return .stored(.data(try FileStateCodec.encode(try readThrough(resolved.manager), base64Encoded: false, path: filePath)))
        }
        let stamp = try files.existingStamp(ofFile: filePath)
        stampFound(stamp)
        return .file(stamp)
    }

    /// Writes `newValue` atomically; an optional holding `nil` deletes the file.
    override func write(_ newValue: Value) throws {
        if let filenameProblem { throw filenameProblem }
        let resolved = resolvedFiles
        let path = filePath
        try notifyingObservers {
            if let files = resolved.local {
                try write(newValue, through: files, path: path)
            } else {
                try writeThrough(resolved.manager, newValue)
            }
        }
    }

    /// The write itself, without notifying observers (callers do, outside any file lock).
    private func write(_ newValue: Value, through files: LocalFiles, path: String) throws {
        try preserveCorruptFile(files, path: path)
        if let optional = newValue as? any OptionalValue, optional.wrappedAny == nil {
            try files.removeFile(path)
            lock.withLock { cache = nil }
            kept.clear()
            return
        }
        let data = try FileStateCodec.encode(newValue, base64Encoded: isBase64Encoded, path: path)
        let stamp = try files.writeAtomically(data, toFile: path)
        let cached = stamp.map { Cached(stamp: $0, value: newValue) }
        lock.withLock { cache = cached }
        kept.clear()
    }

    /// Deletes the file so reads return the initial value.
    override func remove() throws {
        if let filenameProblem { throw filenameProblem }
        let resolved = resolvedFiles
        let path = filePath
        try notifyingObservers {
            guard let files = resolved.local else {
                do {
                    try resolved.manager.delete(path: directory, filename: filename)
                } catch {
                    throw FileManagerErrors.naming(error, path: path)
                }
                return
            }
            try preserveCorruptFile(files, path: path)
            try files.removeFile(path)
            lock.withLock { cache = nil }
            kept.clear()
        }
    }

    /// Reads, changes and writes the file as one step: a compare-and-set loop on the file's stamp.
    ///
    /// `body` runs on the current value with no lock held; the result is written only if the
    /// file is still the one `body` started from (same stamp), otherwise `body` runs again on the
    /// newer contents. The comparison and the write happen under an exclusive lock of
    /// `<file>.lock` (an `flock` on the real file system), so updates are atomic across
    /// processes. With a file manager of the user's, which has no stamps to compare, `body` runs
    /// between the read and the write holding ``modification`` (atomic among this entry's
    /// changes in the process; `body` must not touch this entry).
    ///
    /// - Parameter storeFailure: Called with a read, decode or write error: rethrow it, or
    ///   report it. After a reported read or decode error `body` runs on the initial value and
    ///   nothing is written (the error says so): the file it could not read is kept. A reported
    ///   write error returns `body`'s result without storing it.
    override func update<Result>(
        _ body: (inout Value) throws -> Result,
        storeFailure: (any Error) throws -> Void
    ) rethrows -> Result {
        let resolved = resolvedFiles
        guard let files = resolved.local else { return try updateThrough(resolved.manager, body, storeFailure: storeFailure) }
        let path = filePath
        while true {
            var value = initial
            var startStamp: FileStamp?
            var isUnreadable = false
            do {
                if let filenameProblem { throw filenameProblem }
                startStamp = try files.existingStamp(ofFile: path)
                if startStamp != nil {
                    value = try read(checkingFile: true)
                }
            } catch {
                try storeFailure(changeNotWritten(error))
                isUnreadable = true
            }
            let result = try body(&value)
            if isUnreadable { return result }
            do {
                if let filenameProblem { throw filenameProblem }
                // Under `modification` too, so an in-place mutation (`value += 1`) of this entry
                // in this process can't land between the comparison and the write.
                let written = try notifyingObservers {
                    try modification.withLock(self) {
                        try files.withExclusiveLock(path) {
                            guard try files.existingStamp(ofFile: path) == startStamp else { return false }
                            try write(value, through: files, path: path)
                            return true
                        }
                    }
                }
                if written { return result }
            } catch {
                try storeFailure(error)
                return result
            }
        }
    }

    /// ``update(_:storeFailure:)`` with a file manager of the user's: reads, runs `body` and
    /// writes holding ``modification``; a value it can't read is not replaced (nothing is
    /// written). Failures go to `storeFailure` after ``modification`` is released.
    private func updateThrough<Result>(
        _ manager: any FileManaging, _ body: (inout Value) throws -> Result, storeFailure: (any Error) throws -> Void
    ) rethrows -> Result {
        var problem: (any Error)?
        let result = try notifyingObservers {
            try modification.withLock(self) {
                var value = initial
                do {
                    if let filenameProblem { throw filenameProblem }
                    value = try readThrough(manager)
                } catch {
                    problem = changeNotWritten(error)
                    return try body(&value)
                }
                let result = try body(&value)
                do {
                    try writeThrough(manager, value)
                } catch {
                    problem = error
                }
                return result
            }
        }
        if let problem { try storeFailure(problem) }
        return result
    }

    /// Moves an undecodable file aside before it is replaced or removed, so its bytes are never
    /// lost — also when this process never read it (a file edited by hand, or written by an
    /// older version of the program with another type).
    ///
    /// Costs nothing when the file is the one this entry last read or wrote (same stamp);
    /// otherwise the file is read and decoded once.
    private func preserveCorruptFile(_ files: LocalFiles, path: String) throws {
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
            owner.reportError("AppStateKit: \(problem); the file was moved to \(aside)")
            owner.dependency(\.logger).debug("AppStateKit: moved corrupt data aside: \(path) → \(aside)")
        }
        lock.withLock { corruptStamp = nil }
    }

    /// The last value read or written and the stamp of its file. A class rather than a tuple:
    /// reading an optional tuple of a generic value instantiates its type metadata every time.
    private final class Cached: @unchecked Sendable {
        // Safe: immutable.
        let stamp: FileStamp
        let value: Value

        init(stamp: FileStamp, value: Value) {
            self.stamp = stamp
            self.value = value
        }
    }
}
