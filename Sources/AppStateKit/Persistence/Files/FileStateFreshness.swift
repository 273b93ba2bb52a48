import Foundation

/// The generation counter check of one ``Application/FileState`` entry: whether its cached value
/// is still the file's, known without a `stat` (see ``FileFreshness`` for the rule).
///
/// Only files on the real file system — `FileManager`'s and an isolated application's sandbox
/// (``LocalFiles/counterOwner``) — have counters; in a file system in memory every read checks
/// the file's stamp, and a ``FileManaging`` of the user's is read on every read.
final class FileStateFreshness: @unchecked Sendable {
    // Safe: `state` and `owner` are only accessed while `lock` is held.
    private let lock = Lock()
    private var state = FileFreshness()
    /// The clock the entry was created with (see ``FreshnessClock``).
    private let clock = FreshnessClock.current
    /// The file manager (`FileManager` or sandbox directory) the counter belongs to.
    private var owner: ObjectIdentifier?

    /// Maps the counter of `path` and takes the mark to ``record(_:for:)`` after the file's
    /// stamp was checked. Call before that check. The lock file is created when its directory
    /// exists (never the directory).
    func mark(for files: LocalFiles, path: String) -> FileFreshness.Mark? {
        guard let owner = files.counterOwner else { return nil }
        let isAttached = lock.withLock {
            if self.owner != owner {
                self.owner = owner
                state = FileFreshness(clock: clock)
            }
            return state.generation != nil || state.isUnsupported
        }
        if !isAttached {
            let target = files.mapped(path)
            var attached = lock.withLock { state }
            attached.attach(
                lockPath: AtomicFileWriter.lockFile(of: target), in: POSIXFileSystem(), create: true, creatingDirectory: false
            )
            lock.withLock {
                if self.owner == owner, state.generation == nil { state = attached }
            }
        }
        return lock.withLock { self.owner == owner ? state.mark() : nil }
    }

    /// Records a check of the file that started at `mark`, and returns what vouches for the
    /// value the entry read after that check (see ``Check``); `nil` without a counter.
    func record(_ mark: FileFreshness.Mark?, for files: LocalFiles) -> Check? {
        let owner = files.counterOwner
        return lock.withLock {
            state.record(mark)
            guard let owner, self.owner == owner, mark != nil else { return nil }
            return Check(owner: owner, freshness: state.checkpoint)
        }
    }

    /// Moves the file's counter, as a writer does after its rename, so that every value kept
    /// from an earlier check of the file, in every process, is checked again on its next read:
    /// for a change by a writer that doesn't count (another program, an editor), found by a
    /// `stat`. Returns `false` without a counter this process may move.
    @discardableResult
    func announceChange() -> Bool {
        let generation = lock.withLock { state.generation }
        return generation?.increment() != nil
    }

    /// What the entry keeps next to the value it read after a check of the file: that value is
    /// still the file's while the same file manager is in use and the check holds — the
    /// counter hasn't moved since the mark taken before the `stat`, which is less than
    /// ``FileFreshness/revalidationInterval`` old. Checked without any lock but the entry's.
    struct Check: Sendable {
        let owner: ObjectIdentifier
        let freshness: FileFreshness.Checkpoint

        /// Whether `check` is set and holds for a file manager announcing on `owner`'s counters
        /// (``LocalFiles/counterOwner``). Static, so that the optional is not copied.
        @inline(__always)
        static func holds(_ check: Check?, for owner: ObjectIdentifier?) -> Bool {
            guard let owner, check?.owner == owner else { return false }
            return check?.freshness.isCurrent() == true
        }
    }
}
