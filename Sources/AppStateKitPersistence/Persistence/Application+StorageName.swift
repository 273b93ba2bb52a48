import AppStateKitCore
import Foundation

extension Application {
    /// The name of the directory the application keeps its data in, in both default locations:
    /// ``FileKeyValueStore/defaultPath`` and `FileManager.defaultFileStatePath`.
    ///
    /// By default it is the executable's file name, symbolic links resolved, so a copy or a
    /// rename is another name. Set it first thing in `main` so every build, copy and link of the
    /// program finds the same data:
    ///
    /// ```swift
    /// Application.storageName = "inventory-server"
    /// ```
    ///
    /// Setting a different name after a default location was used (the data would be split
    /// between two directories), or a name that is not a single path component, stops the
    /// process with a message. An explicitly set `FileManager.defaultFileStatePath` wins over the
    /// name for file states.
    public static var storageName: String {
        get { StorageName.current }
        set { StorageName.set(newValue) }
    }
}

/// Storage for ``Application/storageName``.
package enum StorageName {
    /// The name set or resolved so far, and whether a default location used it.
    private static let state = LockedBox<(name: String?, isUsed: Bool)>((nil, false))

    package static var current: String {
        state.withLock { $0.name } ?? executableName
    }

    /// The name, fixed from now on: a default location uses it.
    package static func resolvedForDefaultLocation() -> String {
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
