import Foundation

extension Application {
    /// The name of the directory the application keeps its data in, in both default locations:
    /// ``FileKeyValueStore/defaultPath`` (`$XDG_CONFIG_HOME/<name>/defaults.json` or
    /// `~/.config/<name>/defaults.json`) and `FileManager.defaultFileStatePath`
    /// (`$XDG_DATA_HOME/<name>` or `~/.local/share/<name>`; `~/Library/Application Support/<name>`
    /// on Apple platforms).
    ///
    /// By default it is the name of the executable file, with symbolic links resolved: a binary
    /// started through a symlink (`/usr/local/bin/todo → /opt/todo/bin/todo`) uses the name of
    /// the file the link points to. A copy or a rename is another name; set the name explicitly
    /// so that every build, copy and link of the program finds the same data:
    ///
    /// ```swift
    /// // First thing in main (a server's or a command-line tool's):
    /// Application.storageName = "inventory-server"
    /// ```
    ///
    /// Set it before any default location is used — before the first access to a stored state
    /// using the default store or a file state declared without `path:`. Setting a different
    /// name afterwards would split the data between two directories, so it stops the process
    /// with a message naming both names; setting the same name again is allowed. The name must
    /// be a single path component (not empty, `.` or `..`, without `/` or NUL), or the setter
    /// stops the process. An explicitly set `FileManager.defaultFileStatePath` wins
    /// over the name for file states.
    public static var storageName: String {
        get { StorageName.current }
        set { StorageName.set(newValue) }
    }
}

/// Storage for ``Application/storageName``.
enum StorageName {
    /// The name set or resolved so far, and whether a default location used it.
    private static let state = LockedBox<(name: String?, isUsed: Bool)>((nil, false))

    /// The name, without marking it used.
    static var current: String {
        state.withLock { $0.name } ?? executableName
    }

    /// The name, marking it used by a default location: from now on it can't change.
    static func resolvedForDefaultLocation() -> String {
        // Looked up outside the lock: it reads the file system.
        let fallback = executableName
        return state.withLock { state in
            state.isUsed = true
            let resolved = state.name ?? fallback
            state.name = resolved
            return resolved
        }
    }

    static func set(_ newValue: String) {
        if let problem = problemDescription(newValue) {
            preconditionFailure("AppStateKit: Application.storageName \"\(newValue)\" is not usable: \(problem); use a single path component such as \"my-tool\"")
        }
        let previous: String? = state.withLock { state in
            if state.isUsed, let name = state.name, name != newValue { return name }
            state.name = newValue
            return nil
        }
        if let previous {
            preconditionFailure(
                "AppStateKit: Application.storageName was set to \"\(newValue)\" after the default locations were already used with \"\(previous)\"; "
                    + "data would be split between two directories. Set Application.storageName first thing in main, before any StoredState or FileState is used."
            )
        }
    }

    static func problemDescription(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name == "." || name == ".." { return "it is not a directory name" }
        if name.contains("/") { return "it contains \"/\"" }
        if name.utf8.contains(0) { return "it contains a NUL byte" }
        return nil
    }

    /// The executable's file name, symbolic links resolved; `AppStateKit` if it can't be found.
    static var executableName: String {
        #if os(Linux)
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().lastPathComponent
        #else
        let executable = (Bundle.main.executableURL?.resolvingSymlinksInPath().lastPathComponent)
            ?? CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? ""
        #endif
        if !executable.isEmpty, executable != "exe" { return executable }
        let invoked = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? ""
        return invoked.isEmpty ? "AppStateKit" : invoked
    }
}
