import AppStateKitCore
import Foundation

extension FileManager {
    /// The directory ``Application/FileState`` entries use when they don't name one.
    ///
    /// On Linux the default follows the XDG base-directory convention:
    /// `$XDG_DATA_HOME/<name>` when `XDG_DATA_HOME` is set to an absolute path, otherwise
    /// `~/.local/share/<name>`. On Apple platforms it is `~/Library/Application Support/<name>`.
    /// `<name>` is ``Application/storageName``. Settable, e.g. for a project-local
    /// directory; set it before the first FileState declared with the default path is accessed.
    public static var defaultFileStatePath: String {
        get {
            if let path = DefaultFileStatePath.setting.withLock({ $0 }) { return path }
            // Computed outside the lock (it reads the environment); the first value set wins.
            let initial = DefaultFileStatePath.initialValue(name: StorageName.resolvedForDefaultLocation())
            return DefaultFileStatePath.setting.withLock { path in
                if path == nil { path = initial }
                return path!
            }
        }
        set { DefaultFileStatePath.setting.withLock { $0 = newValue } }
    }
}

/// Storage for ``Foundation/FileManager/defaultFileStatePath``.
enum DefaultFileStatePath {
    /// Computed on first read, so setting the path never uses the storage name.
    static let setting = LockedBox<String?>(nil)

    /// The path as set or as computed now, leaving the storage name settable (for a message).
    static func pathWithoutFixingName() -> String {
        setting.withLock { $0 } ?? initialValue(name: StorageName.current)
    }

    static func initialValue(name: String) -> String {
        #if canImport(Darwin)
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        let base = (home as NSString).appendingPathComponent("Library/Application Support")
        #else
        let base = XDGBaseDirectory.base("XDG_DATA_HOME", fallback: ".local/share")
        #endif
        return (base as NSString).appendingPathComponent(name)
    }
}
