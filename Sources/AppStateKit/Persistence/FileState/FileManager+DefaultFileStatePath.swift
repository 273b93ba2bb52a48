import Foundation

extension FileManager {
    /// The directory ``Application/FileState`` entries use when they don't name one.
    ///
    /// On Linux the default follows the XDG base-directory convention:
    /// `$XDG_DATA_HOME/<executable>` when `XDG_DATA_HOME` is set to an absolute path, otherwise
    /// `~/.local/share/<executable>`. On Apple platforms it is
    /// `~/Library/Application Support/<executable>`. Settable, e.g. for a project-local directory;
    /// set it before the first FileState declared with the default path is accessed.
    public static var defaultFileStatePath: String {
        get { DefaultFileStatePath.lock.withLock { DefaultFileStatePath.value } }
        set { DefaultFileStatePath.lock.withLock { DefaultFileStatePath.value = newValue } }
    }
}

/// Storage for ``Foundation/FileManager/defaultFileStatePath``.
enum DefaultFileStatePath {
    static let lock = Lock()
    // Safe: only accessed while `lock` is held.
    nonisolated(unsafe) static var value: String = initialValue()

    static func initialValue() -> String {
        let environment = ProcessInfo.processInfo.environment
        let executable = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? ""
        let name = executable.isEmpty ? "AppStateKit" : executable
        let home = environment["HOME"] ?? NSHomeDirectory()
        #if canImport(Darwin)
        let base = (home as NSString).appendingPathComponent("Library/Application Support")
        #else
        let base: String
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            base = dataHome
        } else {
            base = (home as NSString).appendingPathComponent(".local/share")
        }
        #endif
        return (base as NSString).appendingPathComponent(name)
    }
}
