import AppStateKit
import ArgumentParser
import Foundation

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
        guard storageName != nil else {
            throw ToolError("name the store: --store PATH, or --storage-name NAME for an app's default store (the app's Application.storageName, by default its executable's name)")
        }
        try applyStorageName()
        return FileKeyValueStore.defaultPath
    }

    /// The store at ``storePath()``, in the layout it has on disk: with the log layout when a
    /// log lies beside the file (so the tool's writes append as the app's do), else one file.
    /// Writes are durable (`fsync`ed) and take the store's `flock`, as every app's do.
    func openStore() throws -> FileKeyValueStore {
        let path = try storePath()
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let hasLog = FileManager.default.fileExists(atPath: resolved + ".log")
        return FileKeyValueStore(path: path, durability: .immediate, layout: hasLog ? .appendOnlyLog : .singleFile)
    }
}
