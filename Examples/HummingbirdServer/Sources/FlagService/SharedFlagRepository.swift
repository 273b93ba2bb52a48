import AppStateKit
import Foundation

extension AppStateKit.Application {
    /// Every flag, shared by every instance of the fleet through the `\.syncStore` (a
    /// `PostgresSyncStore` in `FlagServer`'s fleet mode): one SyncState, one record.
    public var sharedFlags: SyncState<[String: Flag]> { syncState(initial: [:], feature: "FlagServer", id: "flags") }

    /// The fleet's maintenance switch, set with SyncState's setter (`PUT /api/maintenance`).
    public var maintenance: SyncState<Bool> { syncState(initial: false, feature: "FlagServer", id: "maintenance") }
}

/// Flags shared by every instance through ``AppStateKit/Application/sharedFlags``: reads are
/// the SyncState's cached value (no I/O); a save is a fleet-atomic `update`, so concurrent saves
/// on different instances never lose each other's flags.
public final class SharedFlagRepository: FlagRepository {
    /// A repository on the application's `\.syncStore`.
    public init() {}

    public func all() throws -> [Flag] {
        AppStateKit.Application.syncState(\.sharedFlags).value.values.sorted { $0.name < $1.name }
    }

    public func flag(named name: String) throws -> Flag? {
        AppStateKit.Application.syncState(\.sharedFlags).value[name]
    }

    public func save(_ flag: Flag) async throws {
        try await AppStateKit.Application.syncState(\.sharedFlags).update { $0[flag.name] = flag }
    }

    /// Removes every flag at once (`write`, unconditional).
    public func removeAll() async throws {
        try await AppStateKit.Application.syncState(\.sharedFlags).write([:])
    }
}
