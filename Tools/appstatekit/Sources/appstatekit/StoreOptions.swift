import AppStateKit
import ArgumentParser
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Which app's stores a command works on: `--store PATH` for one key-value store file, or
/// `--storage-name NAME` for the app's default locations, resolved exactly as the library does
/// for an app whose `Application.storageName` is NAME (`$XDG_CONFIG_HOME/NAME/defaults.json`,
/// else `~/.config/NAME/defaults.json`).
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("store"), help: ArgumentHelp("The key-value store's file.", valueName: "path"))
    var store: String?

    @Option(
        name: .customLong("storage-name"),
        help: ArgumentHelp("The app's Application.storageName (by default its executable's name): its default locations are used.", valueName: "name")
    )
    var storageName: String?

    /// Sets `Application.storageName` to `--storage-name`, checked first (the library stops a
    /// process given a name that is not one path component).
    func applyStorageName() throws {
        guard let storageName else { return }
        if storageName.isEmpty || storageName == "." || storageName == ".." || storageName.contains("/") || storageName.utf8.contains(0) {
            throw ToolError("--storage-name \"\(Output.singleLine(storageName))\" is not usable: it must be one path component, such as \"my-server\"")
        }
        Application.storageName = storageName
    }

    /// The key-value store's path: `--store`, or the default location for `--storage-name`.
    func storePath() throws -> String {
        if let store {
            guard !store.isEmpty, !store.utf8.contains(0) else { throw ToolError("--store needs a file's path") }
            return store
        }
        try applyStorageName()
        if storageName == nil { Self.noteDefaultName() }
        return FileKeyValueStore.defaultPath
    }

    /// Says on standard error, once, that no app was named, so the library's default for this
    /// program (the storage name `appstatekit`) is used.
    static func noteDefaultName() {
        guard !noted.withLock({ $0 }) else { return }
        noted.withLock { $0 = true }
        Output.printError(
            "note: no --store or --storage-name, so the default locations of a program named \"\(Application.storageName)\" are used; name the app's with --storage-name NAME"
        )
    }

    private static let noted = Mutex(false)

    /// The store at ``storePath()``, in the layout it has on disk: with the log layout when a
    /// log lies beside the file (so the tool's writes append as the app's do), else one file.
    /// Writes are durable (`fsync`ed) and take the store's `flock`, as every app's do.
    func openStore() throws -> FileKeyValueStore {
        let path = try storePath()
        try OwnerGuard.check(path, what: "the store")
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let hasLog = FileManager.default.fileExists(atPath: resolved + ".log")
        return FileKeyValueStore(path: path, durability: .immediate, layout: hasLog ? .appendOnlyLog : .singleFile)
    }
}

/// Keeps root from locking an app out of its own store: files the tool creates (the lock file,
/// a replaced store file, a secret) belong to whoever runs it, and a root-owned `0600` file in
/// the app's directory is one the app can no longer open.
enum OwnerGuard {
    /// Throws when the tool runs as root and `path` (or, when it doesn't exist, the nearest
    /// existing directory above it) belongs to another user.
    static func check(_ path: String, what: String) throws {
        guard geteuid() == 0 else { return }
        var candidate = URL(fileURLWithPath: path).standardizedFileURL.path
        var info = stat()
        while stat(candidate, &info) != 0 {
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent == candidate || parent.isEmpty { return }
            candidate = parent
        }
        guard info.st_uid != 0 else { return }
        throw ToolError(
            "\(what) \(path) belongs to uid \(info.st_uid) (\(candidate)), and appstatekit runs as root: files it would create there would lock the app out. Run it as the app's user: sudo -u '#\(info.st_uid)' appstatekit …"
        )
    }
}
