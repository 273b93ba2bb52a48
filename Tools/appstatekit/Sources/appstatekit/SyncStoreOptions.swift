import AppStateKit
import AppStateKitPostgres
import ArgumentParser
import Foundation

/// Which SyncState store a `sync` command works on: the embedded store's file, or the
/// PostgreSQL table with `--postgres`.
struct SyncStoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The embedded store's file. Default: the library's, sync.json beside the app's key-value store ($XDG_CONFIG_HOME/<storage name>/sync.json).", valueName: "path"))
    var syncFile: String?

    @Option(help: ArgumentHelp("The app's Application.storageName (default: its executable's name), which places the default sync file.", valueName: "name"))
    var storageName: String?

    @Flag(help: "Use the PostgreSQL SyncState table instead of the embedded store.")
    var postgres = false

    @OptionGroup(title: "PostgreSQL (with --postgres)")
    var connection: PostgresConnectionOptions

    /// The embedded store's file these options name.
    ///
    /// - Throws: ``SyncToolError`` for a storage name the library would refuse.
    func syncFilePath() throws -> String {
        if let syncFile {
            guard !syncFile.isEmpty, !syncFile.utf8.contains(0) else { throw SyncToolError("--sync-file is empty or contains a NUL byte") }
            return syncFile
        }
        if let storageName {
            if storageName.isEmpty || storageName == "." || storageName == ".." || storageName.contains("/") || storageName.utf8.contains(0) {
                throw SyncToolError("--storage-name \(SyncText.shown(storageName)) is not a storage name: one path component, such as my-tool")
            }
            Application.storageName = storageName
        }
        return LocalSyncStore.defaultPath
    }

    /// Runs `body` with the store these options name, and a description of it for messages.
    ///
    /// A command that `writes` the embedded store refuses, run as root, a file another user
    /// owns: the lock file and the replaced store file it would create would be root's, and the
    /// app could no longer open them.
    func withStore<Result: Sendable>(
        watching: Bool = false,
        writes: Bool = false,
        _ body: @escaping @Sendable (any SyncStore, String) async throws -> Result
    ) async throws -> Result {
        if postgres {
            if syncFile != nil { throw SyncToolError("--sync-file and --postgres name two different stores; pass one") }
            let endpoint = try connection.endpoint()
            let where_ = "PostgreSQL table \(connection.qualifiedTable)\(connection.namespace.map { " namespace \($0)" } ?? "") at \(endpoint.description)"
            return try await withPostgresStore(connection, applicationName: watching ? "appstatekit-watch" : "appstatekit") { store, _ in
                try await body(store, where_)
            }
        }
        let path = try syncFilePath()
        if writes { try OwnerGuard.check(path, what: "the sync file") }
        let store = LocalSyncStore(path: path)
        return try await body(store, "embedded store \(path)")
    }
}

/// A SyncState key given on the command line, checked before it reaches a store.
enum SyncKeyArgument {
    /// Throws unless `key` is one the store takes, and — for a write — one an app can read: a
    /// declaration's key always has the form `<feature>/<id>`.
    static func check(_ key: String, forWriting: Bool, store: String) throws {
        do {
            try SyncLimits.check(key: key, value: nil)
        } catch {
            throw SyncToolError("\(error) (\(store))")
        }
        if forWriting, !key.contains("/") {
            throw SyncToolError("sync key \(SyncText.shown(key)) is not one an app reads: a SyncState's key is <feature>/<id>, such as App/maintenance (\(store)); nothing was written")
        }
    }
}
