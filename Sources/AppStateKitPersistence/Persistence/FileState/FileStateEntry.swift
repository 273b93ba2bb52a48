import AppStateKitCore
import Foundation

/// The registry entry behind an ``Application/FileState``, reading and writing through its
/// owner's `\.fileManager`: a file manager of the user's with `in`, `out` and `delete` on every
/// access (`FileStateEntry+FileManaging.swift`); files AppStateKit can examine (``LocalFiles``)
/// through ``kept``, the value last read or written with its file's stamp, returned while
/// ``FileReadCheck`` vouches for it; otherwise a read decodes the file only if its stamp changed.
@usableFromInline
final class FileStateEntry<Value: Codable & Sendable>: PersistedEntry {
    @usableFromInline let core: EntryCore
    let modification = ModificationLock()
    let reports = FailureReports()
    let initial: Value
    let owner: EntryOwner
    let directory: String
    let filename: String
    let isBase64Encoded: Bool
    let filePath: String
    let filenameProblem: PersistenceError?
    /// What the entry knows of its file, and its value then; never held during I/O or calls out.
    private let kept: KeptRead<FileReadCheck, Value>

    init(key: EntryKey, directory: String, filename: String, isBase64Encoded: Bool, initial: Value, owner: EntryOwner) {
        core = EntryCore(key: key)
        self.initial = initial
        self.owner = owner
        self.directory = directory
        self.filename = filename
        self.isBase64Encoded = isBase64Encoded
        self.filePath = (directory as NSString).appendingPathComponent(filename)
        self.filenameProblem = FileStateEntry.validate(filename: filename, directory: directory)
        // On the freshness clock bound when the entry is created (see ``FreshnessClock``).
        self.kept = KeptRead(FileReadCheck(freshness: FileFreshness()), initial)
    }

    @usableFromInline var kindName: String { "FileState" }
    @usableFromInline var valueTypeName: String { reflectedTypeName(Value.self) }
    @usableFromInline var valueDescription: String { String(describing: value) }

    @usableFromInline var loggedName: String { resolvedPath }

    /// The owning application's `\.fileManager` (in an isolated application, its sandbox).
    var fileManager: any FileManaging {
        owner.dependency(\.fileManager, for: "FileState \(filePath)")
    }

    /// The path the file manager uses: inside the sandbox for an isolated application.
    var resolvedPath: String {
        fileManager.localFiles?.mapped(filePath) ?? filePath
    }

    @usableFromInline func read() throws -> Value {
        trackAccess()
        var value = initial
        let isKept = kept.withLock { check, known in
            guard check.holds(for: owner) else { return false }
            value = known
            return true
        }
        if isKept { return value }
        return try readCheckingFile()
    }

    /// The rest of ``read()``: checks the stamp, decodes a changed file, records the check.
    private func readCheckingFile() throws -> Value {
        if let filenameProblem { throw filenameProblem }
        let (manager, collaborator) = owner.resolution(\.fileManager, for: "FileState \(filePath)")
        guard let files = manager.localFiles else { return try readThrough(manager) }
        let path = filePath
        let mark = markBeforeCheck(files)
        guard let stamp = try files.existingStamp(ofFile: path) else {
            record(mark, for: files, collaborator, stamp: nil, value: initial)
            return initial
        }
        var value = initial
        let isKnown = kept.withLock { check, known in
            guard check.hasKnown, check.knownStamp == stamp else { return false }
            value = known
            return true
        }
        if isKnown {
            record(mark, for: files, collaborator, stamp: stamp, value: value)
            return value
        }
        guard let data = try files.contents(ofFile: path) else { return initial }
        do {
            value = try FileStateCodec.decode(data, as: Value.self, path: path)
        } catch {
            kept.withLock { check, _ in check.corruptStamp = stamp }
            throw error
        }
        record(mark, for: files, collaborator, stamp: stamp, value: value)
        return value
    }

    /// The ``FileFreshness/Mark`` taken before the stamp is checked, mapping the lock file's
    /// counter first if needed (never creating the directory); `nil` for files without counters.
    private func markBeforeCheck(_ files: LocalFiles) -> FileFreshness.Mark? {
        guard let counterOwner = files.counterOwner else { return nil }
        let unattached: FileFreshness? = kept.withLock { check, _ in
            if check.counterOwner != counterOwner {
                check.counterOwner = counterOwner
                check.freshness = FileFreshness(clock: check.freshness.clock)
            }
            return check.freshness.generation == nil && !check.freshness.isUnsupported ? check.freshness : nil
        }
        if var attached = unattached {
            // Mapping the counter is I/O: outside the lock, then installed unless meanwhile
            // another file manager was used or another read installed one.
            attached.attach(
                lockPath: AtomicFileWriter.lockFile(of: files.mapped(filePath)), in: POSIXFileSystem(), create: true, creatingDirectory: false
            )
            kept.withLock { check, _ in
                if check.counterOwner == counterOwner, check.freshness.generation == nil { check.freshness = attached }
            }
        }
        return kept.withLock { check, _ in check.counterOwner == counterOwner ? check.freshness.mark() : nil }
    }

    /// Records a check that started at `mark`, under `collaborator`: the file held `value`
    /// (stamped `stamp`, `nil` for no file). A check of other files than the counter's, or
    /// without a collaborator check, vouches for nothing.
    private func record(_ mark: FileFreshness.Mark?, for files: LocalFiles, _ collaborator: CollaboratorCheck?, stamp: FileStamp?, value: Value) {
        var replaced = value
        kept.withLock { check, known in
            if check.knownStamp != stamp || !check.hasKnown { check.corruptStamp = nil }
            check.hasKnown = true
            check.knownStamp = stamp
            swap(&known, &replaced)
            if let counterOwner = files.counterOwner, counterOwner == check.counterOwner, let collaborator {
                check.freshness.record(mark)
                check.collaborator = collaborator
            } else {
                check.freshness.invalidate()
                check.collaborator = nil
            }
        }
    }

    /// Takes note of `stamp`, found outside the read path (a change stream's poll): neither the
    /// known nor a corrupt file's stamp means someone changed the file without counting (an
    /// editor). Moves the counter so every process checks the file, or else forgets the check.
    func stampFound(_ stamp: FileStamp?) {
        let (isKnown, generation) = kept.withLock { check, _ in
            (stamp == check.knownStamp || (stamp != nil && stamp == check.corruptStamp), check.freshness.generation)
        }
        if !isKnown, generation?.increment() == nil { kept.withLock { check, _ in check.freshness.invalidate() } }
    }

    @usableFromInline func writeValue(_ newValue: Value) throws {
        try change(to: newValue)
    }

    @usableFromInline func removeValue() throws {
        try change(to: nil)
    }

    /// Writes `newValue`, or deletes the file for `nil` (or an optional holding `nil`). Callers
    /// notify observers, outside ``modification``.
    private func change(to newValue: Value?) throws {
        if let filenameProblem { throw filenameProblem }
        let manager = fileManager
        if let files = manager.localFiles {
            try write(newValue, through: files, path: filePath)
        } else {
            try writeThrough(manager, newValue)
        }
    }

    /// The write, without notifying observers (callers do, outside any file lock).
    private func write(_ newValue: Value?, through files: LocalFiles, path: String) throws {
        try preserveCorruptFile(files, path: path)
        guard let newValue, !isNilOptional(newValue) else {
            try files.removeFile(path)
            forgetCheck(knowing: nil, value: initial)
            return
        }
        let data = try FileStateCodec.encode(newValue, base64Encoded: isBase64Encoded, path: path)
        let stamp = try files.writeAtomically(data, toFile: path)
        forgetCheck(knowing: stamp, value: newValue)
    }

    /// After a write of this process: the file holds `value` (stamped `stamp`; `nil`: no file or
    /// unknown), and the next read checks the stamp.
    private func forgetCheck(knowing stamp: FileStamp?, value: Value) {
        var replaced = value
        kept.withLock { check, known in
            check.hasKnown = stamp != nil
            check.knownStamp = stamp
            swap(&known, &replaced)
            check.freshness.invalidate()
            check.collaborator = nil
        }
    }

    /// A compare-and-set loop on the file's stamp: `body` runs with no lock held, and its result
    /// is written only if the file still has the stamp it started from, compared and written
    /// under the `flock` of `<file>.lock` (atomic across processes). A file manager of the
    /// user's has no stamps: see ``updateThrough(_:_:storeFailure:)``. After a read error
    /// reported to `storeFailure`, `body` runs on the initial value and nothing is written.
    @usableFromInline func update<Result>(
        _ body: (inout Value) throws -> Result,
        storeFailure: (any Error) throws -> Void
    ) rethrows -> Result {
        let manager = fileManager
        guard let files = manager.localFiles else { return try updateThrough(manager, body, storeFailure: storeFailure) }
        let path = filePath
        while true {
            var value = initial
            var startStamp: FileStamp?
            var isUnreadable = false
            do {
                if let filenameProblem { throw filenameProblem }
                startStamp = try files.existingStamp(ofFile: path)
                if startStamp != nil {
                    // The file, even when the freshness says nothing changed: the stamp
                    // comparison assumes the value is at least as new as `startStamp`, which a
                    // write renamed but not yet counted would break.
                    trackAccess()
                    value = try readCheckingFile()
                }
            } catch {
                try storeFailure(changeNotWritten(error))
                isUnreadable = true
            }
            let result = try body(&value)
            if isUnreadable { return result }
            do {
                if let filenameProblem { throw filenameProblem }
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

    /// Moves an undecodable file aside before it is replaced or removed, so its bytes are never
    /// lost, also when this process never read it; free when the file is the one last read or written.
    private func preserveCorruptFile(_ files: LocalFiles, path: String) throws {
        guard let stamp = try files.existingStamp(ofFile: path) else {
            kept.withLock { check, _ in check.corruptStamp = nil }
            return
        }
        let (knownStamp, knownCorrupt) = kept.withLock { check, _ in (check.hasKnown ? check.knownStamp : nil, check.corruptStamp) }
        guard stamp != knownStamp else { return }
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
        kept.withLock { check, _ in check.corruptStamp = nil }
    }
}

/// What a ``FileStateEntry`` knows of its file, beside the value it held (``FileStateEntry/kept``).
struct FileReadCheck {
    /// Whether the value next to this is the file's as of ``knownStamp``.
    var hasKnown = false
    /// The stamp of the file when its value was last read or written; `nil`: no file.
    var knownStamp: FileStamp?
    /// The stamp of a file found undecodable: its bytes are moved aside before the next write.
    var corruptStamp: FileStamp?
    /// Whether the known value is still the file's without a `stat`.
    var freshness: FileFreshness
    /// The files (``LocalFiles/counterOwner``) `freshness` counts for.
    var counterOwner: ObjectIdentifier?
    /// The `\.fileManager` resolution the check was recorded under; `nil`: reads check the file.
    var collaborator: CollaboratorCheck?

    /// Whether the known value is what a read by `owner`'s entry returns for the calling task.
    @inline(__always)
    func holds(for owner: EntryOwner) -> Bool {
        hasKnown && freshness.isCurrent() && collaborator?.holds(for: owner) == true
    }
}
