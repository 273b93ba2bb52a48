import Foundation

/// The generation counter check of one ``Application/FileState`` entry: whether its cached value
/// is still the file's, known without a `stat` (see ``FileFreshness`` for the rule).
///
/// Only file managers that write through ``AtomicFileWriter`` on the real file system —
/// `FileManager` and an isolated application's sandbox — announce their writes on the counter;
/// with any other ``FileManaging`` every read checks the file's stamp, as before.
final class FileStateFreshness: @unchecked Sendable {
    // Safe: `state`, `vouched` and `owner` are only accessed while `lock` is held.
    private let lock = Lock()
    private var state = FileFreshness()
    /// The stamp the last check found (`.some(nil)`: no file). The entry's cache and this check
    /// are updated under two locks, so a cached value only counts as current when it is of this
    /// very file version.
    private var vouched = Vouched.nothing

    private enum Vouched {
        case nothing
        case absent
        case file(FileStamp)

        @inline(__always)
        func matches(_ stamp: FileStamp?) -> Bool {
            switch (self, stamp) {
            case (.absent, nil): true
            case let (.file(vouched), stamp?): vouched == stamp
            default: false
            }
        }
    }
    /// The file manager (`FileManager` or sandbox directory) the counter belongs to.
    private var owner: ObjectIdentifier?

    /// Which counters `files` announces writes on, or `nil` when it doesn't: every `FileManager`
    /// writes the real paths (one owner), a sandbox writes below its own directory.
    ///
    /// The common dynamic types are compared first, which costs less than casting.
    @inline(__always)
    private static func owner(of files: any FileManaging) -> ObjectIdentifier? {
        let dynamicType = ObjectIdentifier(type(of: files))
        if dynamicType == ObjectIdentifier(FileManager.self) { return dynamicType }
        switch files {
        case is FileManager: return ObjectIdentifier(FileManager.self)
        case let sandbox as SandboxFileManager: return ObjectIdentifier(sandbox.directory)
        default: return nil
        }
    }

    /// Whether the value cached from `files`, read from the file version `stamp` (`nil`: no
    /// file, so the initial value), may be used without checking the file.
    func isCurrent(for files: any FileManaging, stamp: FileStamp?) -> Bool {
        guard let owner = Self.owner(of: files) else { return false }
        return lock.withLock { self.owner == owner && vouched.matches(stamp) && state.isCurrent() }
    }

    /// Maps the counter of `path` and takes the mark to ``record(_:stamp:)`` after the file's
    /// stamp was checked. Call before that check. The lock file is created when its directory
    /// exists (never the directory).
    func mark(for files: any FileManaging, path: String) -> FileFreshness.Mark? {
        guard let owner = Self.owner(of: files) else { return nil }
        let isAttached = lock.withLock {
            if self.owner != owner {
                self.owner = owner
                state = FileFreshness()
            }
            return state.generation != nil || state.isUnsupported
        }
        if !isAttached {
            let target = (files as? SandboxFileManager)?.mapped(path) ?? path
            var attached = lock.withLock { state }
            attached.attach(lockPath: AtomicFileWriter.sibling(of: target, suffix: ".lock"), in: POSIXFileSystem(), create: true)
            lock.withLock {
                if self.owner == owner, state.generation == nil { state = attached }
            }
        }
        return lock.withLock { self.owner == owner ? state.mark() : nil }
    }

    /// Records a check that started at `mark` and found the file version `stamp` (`nil`: none).
    func record(_ mark: FileFreshness.Mark?, stamp: FileStamp?) {
        lock.withLock {
            state.record(mark)
            vouched = stamp.map(Vouched.file) ?? .absent
        }
    }
}
