import AppStateKitCore
import Foundation

extension FileManager {
    /// The largest ``Application/FileState`` file AppStateKit reads or writes, in bytes:
    /// 64 MiB unless set.
    ///
    /// A file larger than this is an error naming its path and the limit (`EFBIG`), and nothing
    /// past the limit is read or allocated, so a damaged or hostile file can't exhaust memory; a
    /// write that would produce a larger file is refused before anything is written. The setting
    /// is process-wide and applies from the next read or write; it must be positive.
    ///
    /// ```swift
    /// FileManager.maximumFileStateSize = 256 * 1024 * 1024   // a 256 MiB document store
    /// ```
    public static var maximumFileStateSize: Int {
        get { MaximumFileStateSize.setting.withLock { $0 } }
        set {
            precondition(newValue > 0, "AppStateKit: FileManager.maximumFileStateSize must be positive, not \(newValue)")
            MaximumFileStateSize.setting.withLock { $0 = newValue }
        }
    }
}

/// Storage for ``Foundation/FileManager/maximumFileStateSize``.
enum MaximumFileStateSize {
    static let setting = LockedBox<Int>(ReadLimits.defaultMaximumFileSize)
}
