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
            // Read on every access of a FileState declared without a path: each thread reads its
            // own copy (see `ThreadCopiedString`).
            DefaultFileStatePath.setting.value ?? DefaultFileStatePath.setting.setIfUnset(DefaultFileStatePath.initialValue())
        }
        set { DefaultFileStatePath.setting.set(newValue) }
    }
}

/// Storage for ``Foundation/FileManager/defaultFileStatePath``.
enum DefaultFileStatePath {
    /// Unset until read or set: the default is computed on first read, so setting the path
    /// never uses the storage name.
    static let setting = ThreadCopiedString()

    static func initialValue() -> String {
        let environment = ProcessInfo.processInfo.environment
        let name = StorageName.resolvedForDefaultLocation()
        let home = environment["HOME"] ?? NSHomeDirectory()
        #if canImport(Darwin)
        let base = (home as NSString).appendingPathComponent("Library/Application Support")
        #else
        let base: String
        if let dataHome = XDGBaseDirectory.absolutePath("XDG_DATA_HOME", in: environment, fallback: "~/.local/share") {
            base = dataHome
        } else {
            base = (home as NSString).appendingPathComponent(".local/share")
        }
        #endif
        return (base as NSString).appendingPathComponent(name)
    }
}
